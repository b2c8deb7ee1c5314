// A shard owner behind a slow last mile does not set its region's pace
// (issue 14, geography): edges learn how long each owner takes to answer a
// window, stop waiting for one far slower than the rest, and send it one
// window at a time while its shards' gradients accumulate in their caches,
// so nothing it merges is rejected as too stale. (Its downlink still
// carries every fast owner's values after each merge: known, not fixed.)
#include "core/data/fashion_mnist.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/tensor_data.h"
#include "events_of.h"

#include <ATen/Parallel.h>

#include <QTest>

using namespace synaptic;
using namespace synaptic::engine;

class TestSlowOwner : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    TensorSet m_test;

private Q_SLOTS:
    void initTestCase() {
        at::set_num_threads(2);
        const std::string dir = data::resolveDataDir("");
        m_trainSet = data::loadFashionMnist(dir, data::Split::Train, 20000);
        m_train = toTensors(m_trainSet, "cpu");
        m_test = toTensors(data::loadFashionMnist(dir, data::Split::Test, 200), "cpu");
    }

    void regionTrainsAtItsFastOwnersPace() {
        ClusterConfig c = loadClusterConfig(QFINDTESTDATA("data/tiny_cluster.json").toStdString());
        // eu-2 answers a window in about 200 ms (50 ms more each way, and a
        // third of the model over 20 Mb/s); eu-0 and eu-1 in under 50 ms.
        c.regions[0].edges[2].lastMile = LastMile{0.050, 20e6, 0};
        SimOptions o;
        o.virtualSeconds = 4.0;
        o.linkReportSeconds = 1.0;
        o.finalFullEvaluation = false;
        std::vector<SimEvent> events;
        o.observer = [&](const SimEvent &e) { events.push_back(e); };
        Simulation sim(c, m_train, m_trainSet.labels, m_test, o);
        const auto result = sim.run();

        // Gradient and value traffic between two fast edges measures how
        // many windows they close: eu's against us's, where every owner is fast.
        std::map<std::pair<int, int>, std::uint64_t> bytes;
        for (const auto &l : eventsOf<LinkBytesEvent>(events))
            if (l.time > 1.0) // past the start (joins, catch-up, first timings)
                bytes[{l.from, l.to}] += l.bytes;
        const double eu = double(bytes[{1, 2}]);  // eu-0 -> eu-1
        const double us = double(bytes[{4, 5}]);  // us-0 -> us-1
        QVERIFY(us > 0);
        QVERIFY2(eu > 0.5 * us, qPrintable(QString("eu %1 B, us %2 B").arg(eu).arg(us)));
        QVERIFY((bytes[{1, 3}] > 0)); // eu-0 still reaches the slow owner
        // One window at a time to the slow owner: nothing it merges is so
        // stale that it is refused (kMaxVersionsBehind), nothing twice.
        QCOMPARE(result.contributionsRejected, std::uint64_t(0));
        QCOMPARE(result.contributionsDuplicated, std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestSlowOwner)
#include "tst_slow_owner.moc"
