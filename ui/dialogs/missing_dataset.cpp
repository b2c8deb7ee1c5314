#include "missing_dataset.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/embeddings/hot_update_options.h"
#include "core/engine/embeddings/scenario_languages.h"

#include <QAbstractButton>
#include <QCoreApplication>
#include <QMessageBox>
#include <QStringList>

namespace synaptic::ui {

namespace {

QString trMissing(const char *text) { return QCoreApplication::translate("MissingDataset", text); }

bool enoughFortunes(const data::FortuneAvailability &fortunes) {
    return engine::hotUpdateScenarioCanRun(fortunes, engine::HotUpdateOptions{}.newLanguage);
}

} // namespace

FashionMnistFiles findFashionMnist(const std::string &dataDir) {
    const std::string folder = data::resolveDataDir(dataDir);
    return {QString::fromStdString(folder), QString::fromStdString(data::missingFashionMnistFile(folder))};
}

QString missingFashionMnistError(const FashionMnistFiles &files) {
    return trMissing("Fashion-MNIST, which the cluster trains on, is not installed: %1 is missing.\n"
              "Install it with: sudo apt install dataset-fashion-mnist (or pass --data DIR).")
        .arg(files.missing);
}

QString missingFashionMnistText(const FashionMnistFiles &files, const data::FortuneAvailability &fortunes) {
    const QString text = missingFashionMnistError(files);
    if (enoughFortunes(fortunes))
        return text + trMissing("\n\nContinue with what is installed: language identification on the fortune files "
                         "(%1 languages), with embedding hot updates?")
                          .arg(fortunes.present.size());
    QStringList packages;
    for (const auto &l : fortunes.missing)
        packages << QString::fromStdString(l.package);
    return text + trMissing("\n\nThe other task, language identification, needs more of the fortune files (its new "
                     "language, %1, and one other): sudo apt install %2")
                      .arg(QString::fromStdString(engine::HotUpdateOptions{}.newLanguage), packages.join(' '));
}

MissingDataChoice askAboutMissingFashionMnist(QWidget *parent, const FashionMnistFiles &files,
                                               const data::FortuneAvailability &fortunes,
                                               const std::function<int(QMessageBox &)> &ask) {
    const bool canContinue = enoughFortunes(fortunes);
    QMessageBox box(canContinue ? QMessageBox::Question : QMessageBox::Critical, trMissing("Synaptic: dataset missing"),
                    missingFashionMnistText(files, fortunes),
                    canContinue ? QMessageBox::Yes | QMessageBox::No : QMessageBox::Close, parent);
    if (canContinue) {
        box.setDefaultButton(QMessageBox::Yes);
        box.button(QMessageBox::Yes)->setText(trMissing("Continue with language ID"));
        box.button(QMessageBox::No)->setText(trMissing("Quit"));
    }
    const int answer = ask ? ask(box) : box.exec();
    return canContinue && answer == QMessageBox::Yes ? MissingDataChoice::ContinueWithLangId : MissingDataChoice::Quit;
}

} // namespace synaptic::ui
