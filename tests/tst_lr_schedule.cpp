// The learning-rate schedule (issue 14): every strategy's optimizer takes
// the scheduled rate, so annealing is compared at the same sample budget.
// A one-step budget under a schedule that ends at zero must leave every
// strategy's served model where it started (to rounding); without the schedule
// the same step moves it. A strategy whose optimizer ignored the schedule
// fails here.
#include "core/engine/model_file.h"
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
    // the one `strategy` serves after one step per edge.
    double moved(const std::string &strategy, double decayFrom, double final) {
        ClusterConfig c = m_tiny;
        c.strategy = strategy;
        c.knobs.dilocoLocalSteps = 1;
        c.knobs.gossipSteps = 1;
        c.lrDecayFrom = decayFrom;
        c.lrFinal = final;
        SimOptions o;
        o.stepsPerEdge = 1;
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

    void aScheduleEndingAtZeroStopsTheLastStep_data() {
        QTest::addColumn<QString>("strategy");
        for (const auto &s : kStrategies)
            QTest::newRow(s.c_str()) << QString::fromStdString(s);
    }
    void aScheduleEndingAtZeroStopsTheLastStep() {
        QFETCH(QString, strategy);
        const std::string s = strategy.toStdString();
        QVERIFY2(moved(s, 1.0, 1.0) > 1e-4, "without the schedule the step moves the model");
        // Zero but for rounding: gossip serves the mean of its edges' models.
        const double still = moved(s, 0.0, 0.0);
        QVERIFY2(still < 1e-6, qPrintable(QString::number(still)));
    }
};

QTEST_GUILESS_MAIN(TestLrSchedule)
#include "tst_lr_schedule.moc"
