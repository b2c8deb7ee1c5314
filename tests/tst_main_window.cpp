// The first window, offscreen: it trains on the engine thread and its chart
// and status bar receive real points; controls and theme work; layout persists.
#include "ui/charts/training_chart.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QLabel>
#include <QLineSeries>
#include <QValueAxis>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

using namespace synaptic;

namespace {
engine::TrainConfig tinyConfig() {
    engine::TrainConfig c;
    c.epochs = 1;
    c.subset = 1280;      // 20 steps of 64
    c.testSubset = 500;
    c.threads = 2;
    c.progressEverySteps = 2;
    c.evalEverySteps = 5;
    c.device = "cpu";
    return c;
}
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QApplication::setOrganizationName("SynapticTest");
        QApplication::setApplicationName("tst_main_window");
        QSettings().clear();
    }

    void trainsAndPlots() {
        ui::MainWindow w(tinyConfig());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(w.session(), &ui::TrainingSession::finished);
        QSignalSpy batches(w.session(), &ui::TrainingSession::progressBatch);
        w.startTraining();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        // Losses every 2 steps (10) and evaluations at 5, 10, 15, 20.
        QCOMPARE(w.chart()->lossPointCount(), 10);
        QCOMPARE(w.chart()->accuracyPointCount(), 4);
        QCOMPARE(w.chart()->lossSeries()->count(), 10);
        QCOMPARE(w.chart()->accuracySeries()->count(), 4);
        const double lastAccuracy = w.chart()->accuracySeries()->at(3).y();
        QVERIFY2(lastAccuracy > 0.3 && lastAccuracy <= 1.0, qPrintable(QString::number(lastAccuracy)));
        // The accuracy axis zooms to the data but keeps every point visible.
        auto *accuracyAxis = qobject_cast<QValueAxis *>(w.chart()->accuracySeries()->attachedAxes().last());
        QVERIFY(accuracyAxis);
        QCOMPARE(accuracyAxis->max(), 1.0);
        for (const QPointF &p : w.chart()->accuracySeries()->points())
            QVERIFY(p.y() >= accuracyAxis->min());
        QVERIFY(batches.count() >= 1);
        QVERIFY2(w.statusLabel()->text().startsWith("Finished"), qPrintable(w.statusLabel()->text()));
        QCOMPARE(w.session()->state(), ui::TrainingSession::State::Finished);
    }

    void pauseAndStop() {
        engine::TrainConfig c = tinyConfig();
        c.subset = 0; // whole set: long enough to pause and stop
        c.evalEverySteps = 0;
        ui::MainWindow w(c);
        w.show();
        QSignalSpy finished(w.session(), &ui::TrainingSession::finished);
        w.startTraining();
        QTRY_VERIFY_WITH_TIMEOUT(w.chart()->lossPointCount() >= 2, 60000);
        w.togglePause();
        QCOMPARE(w.session()->state(), ui::TrainingSession::State::Paused);
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->isEngineHeld(), 20000);
        // Let whatever the engine reported before it stopped reach the chart.
        QTest::qWait(3 * ui::TrainingSession::kCoalesceMs);
        const auto pausedPoints = w.chart()->lossPointCount();
        QTest::qWait(600);
        QCOMPARE(w.chart()->lossPointCount(), pausedPoints);
        w.togglePause();
        QCOMPARE(w.session()->state(), ui::TrainingSession::State::Running);
        w.stopTraining();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(finished.first().first().value<engine::TrainReport>().stopped);
        QVERIFY(w.statusLabel()->text().startsWith("Stopped"));
    }

    void failureIsReported() {
        engine::TrainConfig c = tinyConfig();
        c.dataDir = "/nonexistent/fm";
        ui::MainWindow w(c);
        QSignalSpy failed(w.session(), &ui::TrainingSession::failed);
        w.startTraining();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QVERIFY(failed.first().first().toString().contains("/nonexistent/fm"));
        QVERIFY(w.statusLabel()->text().contains("/nonexistent/fm"));
    }

    void themeSwitchAndPersistence() {
        {
            ui::MainWindow w(tinyConfig());
            QCOMPARE(w.theme(), ui::Theme::Dark); // dark by default
            QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
            w.setTheme(ui::Theme::Light);
            QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 150);
            w.resize(900, 600);
            w.close();
        }
        ui::MainWindow again(tinyConfig());
        QCOMPARE(again.theme(), ui::Theme::Light);
        QCOMPARE(again.size(), QSize(900, 600));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
