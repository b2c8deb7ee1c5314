// The learning-rate schedule (issue 14): every strategy's optimizer takes
// the scheduled rate, so annealing is compared at the same sample budget.
// The rate's arithmetic, a restarted live node's place on it, and each
// strategy's optimizer: a schedule that ends at zero stops every
// strategy's last update, and still lets the first of two through (a
// counter one step ahead would stop that one too).
#include "core/engine/learning_rate.h"
#include "core/engine/model_file.h"
#include "core/engine/sim/lr_schedule.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/sim/strategy.h"
#include "tiny_cluster_data.h"

#include <ATen/ATen.h>

#include <QTemporaryDir>
#include <QTest>

using namespace synaptic;
using namespace synaptic::engine;

class TestLrSchedule : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train, m_test;
    ClusterConfig m_tiny;
    QTemporaryDir m_dir;

    // The largest change of any parameter between the initial model and
    // the one `strategy` serves after `steps` steps per edge, under a
    // schedule decaying from the budget's start to zero (or none).
    double moved(const std::string &strategy, bool decay, std::uint64_t steps) {
        ClusterConfig c = m_tiny;
        c.strategy = strategy;
        c.knobs.dilocoLocalSteps = 1;
        c.knobs.gossipSteps = 1;
        c.lrDecayFrom = decay ? 0.0 : 1.0;
        c.lrFinal = decay ? 0.0 : 1.0;
        SimOptions o;
        o.stepsPerEdge = steps;
        o.finalFullEvaluation = false;
        o.saveModelPath = m_dir.filePath(QString::fromStdString(strategy) + ".model").toStdString();
        Simulation sim(c, m_train, m_trainSet.labels, m_test, o);
        sim.run();
        const auto setup = makeModelSetup(c, topologyOf(c), "cpu");
        auto served = setup->newModel();
        loadModel(o.saveModelPath, served->module());
        return (served->values() - setup->initialValues).abs().max().item<double>();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        loadTinyClusterData(m_trainSet, m_train, m_test, m_tiny, 2000, 100);
    }

    // Decay from half the budget to a tenth of lr = 0.01.
    void theRate_data() {
        QTest::addColumn<qulonglong>("stepsDone");
        QTest::addColumn<qulonglong>("budget");
        QTest::addColumn<double>("expected");
        QTest::newRow("start") << 0ull << 100ull << 0.01;
        QTest::newRow("decay starts") << 50ull << 100ull << 0.01;
        QTest::newRow("half-way down the cosine") << 75ull << 100ull << 0.01 * 0.55;
        QTest::newRow("last step") << 100ull << 100ull << 0.001;
        QTest::newRow("past the budget") << 130ull << 100ull << 0.001;
        QTest::newRow("no budget: the end is unknown") << 1000000ull << 0ull << 0.01;
    }
    void theRate() {
        QFETCH(qulonglong, stepsDone);
        QFETCH(qulonglong, budget);
        QFETCH(double, expected);
        ClusterConfig c;
        c.learningRate = 0.01;
        c.lrDecayFrom = 0.5;
        c.lrFinal = 0.1;
        const double rate = scheduledLearningRate(c, stepsDone, budget);
        QVERIFY2(std::abs(rate - expected) < 1e-12, qPrintable(QString::number(rate)));
    }

    // The trainer's "cosine" schedule (learning_rate.h): the whole run.
    void theTrainersCosine() {
        QCOMPARE(cosineLearningRate(1e-3, 0, 100), 1e-3);
        QVERIFY(qAbs(cosineLearningRate(1e-3, 50, 100) - 5e-4) < 1e-12);
        QVERIFY(cosineLearningRate(1e-3, 100, 100) < 1e-12);
        QCOMPARE(cosineLearningRate(1e-3, 7, 0), 1e-3); // no steps: no schedule
    }

    void itFallsAlongTheCosineAndIsOffByDefault() {
        ClusterConfig c;
        c.lrDecayFrom = 0.5;
        c.lrFinal = 0.1;
        QVERIFY(scheduledLearningRate(c, 60, 100) < c.learningRate);
        QVERIFY(scheduledLearningRate(c, 60, 100) > scheduledLearningRate(c, 70, 100));
        const ClusterConfig plain;
        QCOMPARE(scheduledLearningRate(plain, 100, 100), plain.learningRate);
    }

    // What a live edge that (re)joins trains, and where its schedule starts.
    void resumedBudget_data() {
        QTest::addColumn<qulonglong>("total");
        QTest::addColumn<qulonglong>("done");
        QTest::addColumn<qulonglong>("left");
        QTest::addColumn<qulonglong>("before");
        QTest::newRow("first start") << 300ull << 0ull << 300ull << 0ull;
        QTest::newRow("half-way") << 300ull << 150ull << 150ull << 150ull;
        QTest::newRow("region done: one step more") << 300ull << 300ull << 1ull << 300ull;
        QTest::newRow("past the budget") << 300ull << 400ull << 1ull << 300ull;
        QTest::newRow("no budget") << 0ull << 50ull << 0ull << 0ull;
    }
    void resumedBudget() {
        QFETCH(qulonglong, total);
        QFETCH(qulonglong, done);
        QFETCH(qulonglong, left);
        QFETCH(qulonglong, before);
        const ResumedBudget r = resumeBudget(total, done);
        QCOMPARE(qulonglong(r.stepsPerEdge), left);
        QCOMPARE(qulonglong(r.stepsDoneBefore), before);
    }

    // A live edge restarted half-way trains what its region has left; its
    // schedule goes on from the region's step, not from the start (decay
    // from a quarter of the budget, so the start's rate would differ).
    void aRestartedNodeGoesOnFromItsRegionsStep_data() {
        QTest::addColumn<qulonglong>("stepsSinceRestart");
        for (qulonglong s : {0ull, 40ull, 150ull})
            QTest::newRow(qPrintable(QString::number(s))) << s;
    }
    void aRestartedNodeGoesOnFromItsRegionsStep() {
        QFETCH(qulonglong, stepsSinceRestart);
        ClusterConfig c;
        c.lrDecayFrom = 0.25;
        c.lrFinal = 0.1;
        NodeContext fresh, restarted;
        fresh.config = restarted.config = &c;
        fresh.stepsPerEdge = 300;
        const ResumedBudget r = resumeBudget(300, 150);
        restarted.stepsPerEdge = r.stepsPerEdge;
        restarted.stepsDoneBefore = r.stepsDoneBefore;
        QCOMPARE(restarted.learningRate(stepsSinceRestart), fresh.learningRate(150 + stepsSinceRestart));
        QVERIFY(restarted.learningRate(stepsSinceRestart) < c.learningRate);
    }

    void everyStrategyFollowsTheSchedule_data() {
        QTest::addColumn<QString>("strategy");
        for (const auto &s : kStrategies)
            QTest::newRow(s.c_str()) << QString::fromStdString(s);
    }
    void everyStrategyFollowsTheSchedule() {
        QFETCH(QString, strategy);
        const std::string s = strategy.toStdString();
        QVERIFY2(moved(s, false, 1) > 1e-4, "without the schedule the step moves the model");
        // Zero but for rounding: gossip serves the mean of its edges' models.
        const double still = moved(s, true, 1);
        QVERIFY2(still < 1e-6, qPrintable(QString::number(still)));
        // Two steps: the first update runs at half the rate (it moves the
        // model), the second at 0.
        const double half = moved(s, true, 2);
        QVERIFY2(half > 1e-4, qPrintable(QString::number(half)));
    }
};

QTEST_GUILESS_MAIN(TestLrSchedule)
#include "tst_lr_schedule.moc"
