#include "missing_dataset.h"

#include "core/data/fashion_mnist.h"

#include <QAbstractButton>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QStringList>

namespace synaptic::ui {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("MissingDataset", text); }

// The langid scenario needs two languages to tell apart.
bool enoughFortunes(const data::FortuneAvailability &fortunes) { return fortunes.present.size() >= 2; }

} // namespace

FashionMnistFiles findFashionMnist(const std::string &dataDir) {
    FashionMnistFiles f;
    f.folder = QString::fromStdString(data::resolveDataDir(dataDir));
    for (const char *name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                             "t10k-labels-idx1-ubyte.gz"}) {
        const QString path = QDir(f.folder).filePath(name);
        if (!QFileInfo(path).isFile()) {
            f.missing = path;
            break;
        }
    }
    return f;
}

QString missingFashionMnistError(const FashionMnistFiles &files) {
    return tr("Fashion-MNIST, which the cluster trains on, is not installed: %1 is missing.\n"
              "Install it with: sudo apt install dataset-fashion-mnist (or pass --data DIR).")
        .arg(files.missing);
}

QString missingFashionMnistText(const FashionMnistFiles &files, const data::FortuneAvailability &fortunes) {
    const QString text = missingFashionMnistError(files);
    if (enoughFortunes(fortunes))
        return text + tr("\n\nContinue with what is installed: language identification on the fortune files "
                         "(%1 languages), with embedding hot updates?")
                          .arg(fortunes.present.size());
    QStringList packages;
    for (const auto &l : fortunes.missing)
        packages << QString::fromStdString(l.package);
    return text + tr("\n\nThe other task, language identification, needs the fortune files too: "
                     "sudo apt install %1")
                      .arg(packages.join(' '));
}

MissingDataChoice askAboutMissingFashionMnist(QWidget *parent, const FashionMnistFiles &files,
                                               const data::FortuneAvailability &fortunes,
                                               const std::function<int(QMessageBox &)> &ask) {
    const bool canContinue = enoughFortunes(fortunes);
    QMessageBox box(canContinue ? QMessageBox::Question : QMessageBox::Critical, tr("Synaptic: dataset missing"),
                    missingFashionMnistText(files, fortunes),
                    canContinue ? QMessageBox::Yes | QMessageBox::No : QMessageBox::Close, parent);
    if (canContinue) {
        box.setDefaultButton(QMessageBox::Yes);
        box.button(QMessageBox::Yes)->setText(tr("Continue with language ID"));
        box.button(QMessageBox::No)->setText(tr("Quit"));
    }
    const int answer = ask ? ask(box) : box.exec();
    return canContinue && answer == QMessageBox::Yes ? MissingDataChoice::ContinueWithLangId : MissingDataChoice::Quit;
}

} // namespace synaptic::ui
