// Issue 17 §3: without Fashion-MNIST the app names the package and offers
// to continue with the language-ID scenario on the fortune files. On the
// real dataset folders, a copy missing one file, an empty fortune folder,
// and the real `synaptic` binary pointed at a folder without the data.
#include "ui/dialogs/missing_dataset.h"

#include "core/data/fashion_mnist.h"

#include <QAbstractButton>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace synaptic;
using namespace synaptic::ui;

class TestMissingDataset : public QObject {
    Q_OBJECT

    static data::FortuneAvailability installedFortunes() {
        return data::fortuneAvailability(data::resolveFortuneDir({}));
    }

private Q_SLOTS:
    void theInstalledDatasetIsFound() {
        const auto files = findFashionMnist({});
        QVERIFY2(files.present(), qPrintable(files.missing));
        QCOMPARE(files.folder, QString::fromStdString(data::resolveDataDir({})));
    }

    // Three of the four files: the fourth is named.
    void aMissingFileIsNamed() {
        QTemporaryDir dir;
        const QDir real(QString::fromStdString(data::resolveDataDir({})));
        for (const char *name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"})
            QVERIFY(QFile::copy(real.filePath(name), QDir(dir.path()).filePath(name)));
        const auto files = findFashionMnist(dir.path().toStdString());
        QVERIFY(!files.present());
        QCOMPARE(files.missing, QDir(dir.path()).filePath("t10k-labels-idx1-ubyte.gz"));
        const QString text = missingFashionMnistText(files, installedFortunes());
        QVERIFY2(text.contains("sudo apt install dataset-fashion-mnist"), qPrintable(text));
        QVERIFY2(text.contains(files.missing), qPrintable(text));
    }

    // Fortune files installed (the package list has them): the box offers
    // language ID, and the answer decides.
    void theUserChoosesToContinueOrQuit() {
        const auto fortunes = installedFortunes();
        QVERIFY2(fortunes.present.size() >= 2, "the test needs Debian's fortune packages");
        const auto files = findFashionMnist("/nonexistent/fashion-mnist");
        QVERIFY(!files.present());
        QString asked;
        QStringList buttons;
        auto answer = [&](int reply) {
            return [&, reply](QMessageBox &box) {
                asked = box.text();
                buttons.clear();
                for (auto *b : box.buttons())
                    buttons << b->text();
                return reply;
            };
        };
        QCOMPARE(askAboutMissingFashionMnist(nullptr, files, fortunes, answer(QMessageBox::Yes)),
                 MissingDataChoice::ContinueWithLangId);
        QVERIFY2(asked.contains(QString("language identification on the fortune files (%1 languages)")
                                    .arg(fortunes.present.size())),
                 qPrintable(asked));
        QVERIFY2(buttons.contains("Continue with language ID") && buttons.contains("Quit"),
                 qPrintable(buttons.join(", ")));
        QCOMPARE(askAboutMissingFashionMnist(nullptr, files, fortunes, answer(QMessageBox::No)),
                 MissingDataChoice::Quit);
    }

    // Neither dataset: nothing to continue with; the box only closes and
    // names the fortune packages as well.
    void withoutFortunesThereIsNothingToOffer() {
        QTemporaryDir empty;
        const auto fortunes = data::fortuneAvailability(empty.path().toStdString());
        QVERIFY(fortunes.present.empty());
        const auto files = findFashionMnist("/nonexistent/fashion-mnist");
        QStringList buttons;
        const auto choice = askAboutMissingFashionMnist(nullptr, files, fortunes, [&](QMessageBox &box) {
            for (auto *b : box.buttons())
                buttons << b->text();
            return int(QMessageBox::Yes); // not offered: still Quit
        });
        QCOMPARE(choice, MissingDataChoice::Quit);
        QCOMPARE(buttons.size(), 1);
        const QString text = missingFashionMnistText(files, fortunes);
        QVERIFY2(text.contains("fortunes-de") && text.contains("fortunes-zh"), qPrintable(text));
        QVERIFY2(!text.contains("Continue"), qPrintable(text));
    }

    // English and German only: two languages, but not the scenario's new
    // one (Esperanto), so the scenario could not start; nothing is offered.
    void twoLanguagesWithoutTheNewOneAreNotEnough() {
        QTemporaryDir fortunes;
        const QDir real(QString::fromStdString(data::resolveFortuneDir({})));
        QVERIFY(QFile::copy(real.filePath("fortunes"), QDir(fortunes.path()).filePath("fortunes")));
        QVERIFY(QDir(fortunes.path()).mkdir("de"));
        QVERIFY(QFile::copy(real.filePath("de/anekdoten"), QDir(fortunes.path()).filePath("de/anekdoten")));
        const auto have = data::fortuneAvailability(fortunes.path().toStdString());
        QCOMPARE(have.present, (std::vector<std::string>{"en", "de"}));
        const auto files = findFashionMnist("/nonexistent/fashion-mnist");
        const auto choice =
            askAboutMissingFashionMnist(nullptr, files, have, [](QMessageBox &) { return int(QMessageBox::Yes); });
        QCOMPARE(choice, MissingDataChoice::Quit);
        const QString text = missingFashionMnistText(files, have);
        QVERIFY2(text.contains("fortunes-eo") && !text.contains("fortunes-de"), qPrintable(text));
    }

    // The real app on a folder without the data, scripted (a screenshot
    // run is not asked): exit 1, the package named on stderr, no window.
    void theAppSaysWhatToInstall() {
        QTemporaryDir dir;
        QProcess app;
        app.start(qEnvironmentVariable("SYNAPTIC_APP"),
                  {"--data", dir.path(), "--screenshot", QDir(dir.path()).filePath("shot.png")});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 1);
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(err.contains("sudo apt install dataset-fashion-mnist"), qPrintable(err));
        QVERIFY2(err.contains(QDir(dir.path()).filePath("train-images-idx3-ubyte.gz")), qPrintable(err));
        QVERIFY(!QFile::exists(QDir(dir.path()).filePath("shot.png")));
    }
};

QTEST_MAIN(TestMissingDataset)
#include "tst_missing_dataset.moc"
