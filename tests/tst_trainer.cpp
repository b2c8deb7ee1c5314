// Short real training runs on Fashion-MNIST subsets: accuracy must clearly
// beat chance (0.10), progress must be reported, and pause/stop must work
// from another thread.
#include "core/data/data_error.h"
#include "core/engine/trainer.h"

#include <QTest>

#include <atomic>
#include <thread>

using namespace synaptic::engine;

namespace {
// Runs `trainer` on a thread, publishing the latest optimizer step it
// reported; the report lands in `report` once the thread is joined.
std::thread runInBackground(Trainer &trainer, std::atomic<long long> &lastStep, TrainReport &report) {
    return std::thread([t = &trainer, step = &lastStep, out = &report] {
        *out = t->run([step](const TrainProgress &p) {
            if (p.kind == TrainProgress::Kind::Step)
                *step = p.step;
        });
    });
}

TrainConfig smallConfig() {
    TrainConfig c;
    c.epochs = 1;
    c.subset = 6000;
    c.testSubset = 2000;
    c.threads = 2;
    c.device = "cpu"; // pause/stop timing assumes CPU-sized steps
    c.seed = 3;
    return c;
}
} // namespace

class TestTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shortRunLearns() {
        Trainer trainer(smallConfig());
        std::vector<TrainProgress> seen;
        const TrainReport r = trainer.run([&](const TrainProgress &p) { seen.push_back(p); });
        // 6000 samples, one epoch: this CNN reaches ~0.80; chance is 0.10.
        QVERIFY2(r.testAccuracy >= 0.72, qPrintable(QString::number(r.testAccuracy)));
        QVERIFY2(r.exitTestAccuracy >= 0.55, qPrintable(QString::number(r.exitTestAccuracy)));
        QCOMPARE(r.epochs, 1);
        QCOMPARE(r.samples, 6000LL);
        QCOMPARE(r.steps, 94LL); // ceil(6000 / 64)
        QCOMPARE(r.trainSetSize, 6000LL);
        QCOMPARE(r.testSetSize, 2000LL);
        QVERIFY(r.samplesPerSecond > 0);
        QVERIFY(r.wallSeconds >= r.trainSeconds);
        QVERIFY(!r.stopped);
        // Loss falls: the last reported loss is well under the first.
        QVERIFY(r.lossCurve.size() >= 4);
        QVERIFY(r.lossCurve.back().loss < 0.7 * r.lossCurve.front().loss);
        // Progress: steps in order, then one evaluation and a final report.
        QVERIFY(seen.size() >= 5);
        QCOMPARE(seen.back().kind, TrainProgress::Kind::Finished);
        for (std::size_t i = 1; i < seen.size(); ++i)
            QVERIFY(seen[i].step >= seen[i - 1].step);
        QCOMPARE(seen.back().testAccuracy, r.testAccuracy);
    }

    void evaluatesEveryNSteps() {
        TrainConfig c = smallConfig();
        c.subset = 1280;
        c.testSubset = 500;
        c.evalEverySteps = 5; // 20 steps -> evaluations at 5, 10, 15, 20
        Trainer trainer(c);
        const TrainReport r = trainer.run();
        QCOMPARE(r.evalCurve.size(), std::size_t(4));
        QCOMPARE(r.evalCurve.front().step, 5LL);
        QCOMPARE(r.evalCurve.back().step, 20LL);
    }

    void stopFromAnotherThread() {
        TrainConfig c = smallConfig();
        c.subset = 0; // the whole set: far longer than the test waits
        c.epochs = 3;
        c.progressEverySteps = 5;
        Trainer trainer(c);
        std::atomic<long long> lastStep{0};
        std::thread stopper([&] {
            while (lastStep.load() < 30)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            trainer.requestStop();
        });
        const TrainReport r = trainer.run([&](const TrainProgress &p) { lastStep = p.step; });
        stopper.join();
        QVERIFY(r.stopped);
        QVERIFY(r.steps >= 30 && r.steps < 200);
        QCOMPARE(r.epochs, 0); // no epoch completed
        QVERIFY(r.testAccuracy > 0); // evaluated anyway, for the report
    }

    void pauseHoldsTheEngine() {
        TrainConfig c = smallConfig();
        c.progressEverySteps = 1;
        Trainer trainer(c);
        std::atomic<long long> lastStep{0};
        TrainReport report;
        std::thread worker = runInBackground(trainer, lastStep, report);
        QTRY_VERIFY_WITH_TIMEOUT(lastStep.load() >= 3, 20000);
        trainer.pause();
        QVERIFY(trainer.isPaused());
        // Wait until the engine confirms it is blocked, not for a guess at
        // how long a step takes on a loaded machine.
        QTRY_VERIFY_WITH_TIMEOUT(trainer.isHeld(), 20000);
        const long long pausedAt = lastStep.load();
        QTest::qWait(500);
        QCOMPARE(lastStep.load(), pausedAt);
        QVERIFY(trainer.isHeld());
        trainer.resume();
        QTRY_VERIFY_WITH_TIMEOUT(lastStep.load() > pausedAt, 20000);
        trainer.requestStop();
        worker.join();
    }

    void stopWhilePausedTakesNoFurtherStep() {
        TrainConfig c = smallConfig();
        c.progressEverySteps = 1;
        Trainer trainer(c);
        std::atomic<long long> lastStep{0};
        TrainReport report;
        std::thread worker = runInBackground(trainer, lastStep, report);
        QTRY_VERIFY_WITH_TIMEOUT(lastStep.load() >= 2, 20000);
        trainer.pause();
        QTRY_VERIFY_WITH_TIMEOUT(trainer.isHeld(), 20000);
        const long long pausedAt = lastStep.load();
        trainer.requestStop();
        worker.join();
        QVERIFY(report.stopped);
        QCOMPARE(report.steps, pausedAt);
        QVERIFY(report.testAccuracy > 0); // a stop still evaluates
    }

    void abortSkipsFinalEvaluation() {
        TrainConfig c = smallConfig();
        c.progressEverySteps = 1;
        Trainer trainer(c);
        std::atomic<long long> lastStep{0};
        TrainReport report;
        std::thread worker = runInBackground(trainer, lastStep, report);
        QTRY_VERIFY_WITH_TIMEOUT(lastStep.load() >= 2, 20000);
        trainer.requestAbort();
        worker.join();
        QVERIFY(report.stopped);
        QVERIFY(report.evalCurve.empty());
        QCOMPARE(report.testAccuracy, 0.0);
    }

    void badDataDirThrows() {
        TrainConfig c = smallConfig();
        c.dataDir = "/nonexistent/data";
        Trainer trainer(c);
        QVERIFY_THROWS_EXCEPTION(synaptic::data::DataError, trainer.run());
    }

    void badDeviceThrows() {
        TrainConfig c = smallConfig();
        c.device = "quantum";
        Trainer trainer(c);
        QVERIFY_THROWS_EXCEPTION(ConfigError, trainer.run());
    }
};

QTEST_GUILESS_MAIN(TestTrainer)
#include "tst_trainer.moc"
