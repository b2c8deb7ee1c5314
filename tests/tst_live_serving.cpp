// Early-exit serving while the cluster trains (issue 6 §2-6): requests at
// every edge on the run's real links, edge images released every K center
// syncs and shipped to the edges, degraded answers when the center is cut
// off, a read-only edge that keeps serving, and determinism with serving on.
#include "core/data/fashion_mnist.h"
#include "core/engine/inference/serving_sim.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/tensor_data.h"
#include "events_of.h"

#include <ATen/Parallel.h>

#include <QTest>

#include <cmath>
#include <map>

using namespace synaptic;
using namespace synaptic::engine;

namespace {

struct Totals {
    std::uint64_t requests = 0, atEdge = 0, degraded = 0, bytes = 0, raw = 0;
};
Totals totalsOf(const std::vector<InferenceEvent> &intervals, double from = 0, double to = 1e18) {
    Totals t;
    for (const auto &i : intervals)
        if (i.time > from && i.time <= to) {
            t.requests += i.requests;
            t.atEdge += i.atEdge;
            t.degraded += i.degraded;
            t.bytes += i.bytesToCenter;
            t.raw += i.rawInputBytes;
        }
    return t;
}

} // namespace

class TestLiveServing : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    TensorSet m_test;
    ClusterConfig m_config;

    std::vector<SimEvent> run(const ClusterConfig &config, SimOptions o, EventHash *hash = nullptr) {
        std::vector<SimEvent> events;
        o.observer = [&](const SimEvent &e) {
            events.push_back(e);
            if (hash)
                hash->add(e);
        };
        o.finalFullEvaluation = false;
        Simulation sim(config, m_train, m_trainSet.labels, m_test, o);
        sim.run();
        return events;
    }

private Q_SLOTS:
    void initTestCase() {
        at::set_num_threads(2);
        const std::string dir = data::resolveDataDir("");
        m_trainSet = data::loadFashionMnist(dir, data::Split::Train, 20000);
        m_train = toTensors(m_trainSet, "cpu");
        m_test = toTensors(data::loadFashionMnist(dir, data::Split::Test, 500), "cpu");
        m_config = loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() + "/tiny_cluster.json");
        m_config.serving.requestRate = 40;
        m_config.serving.releaseEverySyncs = 1;
    }

    void servesWhileTraining() {
        SimOptions o;
        o.virtualSeconds = 3.0;
        const auto events = run(m_config, o);
        const auto intervals = eventsOf<InferenceEvent>(events);
        QVERIFY(intervals.size() >= 3); // one per link report (every virtual second)
        const Totals t = totalsOf(intervals);
        // 6 edges x 40/s x ~3 s, less what is still in flight at the end.
        QVERIFY2(t.requests > 500 && t.requests < 900, qPrintable(QString::number(t.requests)));
        QCOMPARE(t.degraded, std::uint64_t(0));
        QCOMPARE(t.raw, t.requests * ServingWire::kRawImageBytes);
        // Whatever went to the center went as 400-byte feature messages.
        QCOMPARE(t.bytes % (ServingWire::kHeaderBytes + ServingWire::featureBytes()), std::uint64_t(0));
        QVERIFY(t.atEdge < t.requests); // an untrained exit head is not sure of everything

        // Release 0 at the start, more at center syncs, each shipped to every edge.
        const auto images = eventsOf<EdgeImageEvent>(events);
        std::map<int, std::uint64_t> lastVersion;
        std::map<std::uint64_t, double> releasedAt;
        for (const auto &im : images) {
            if (im.edge < 0) {
                releasedAt[im.version] = im.time;
                QCOMPARE(int(im.sweepThreshold.size()), int(im.sweepAccuracy.size()));
                QVERIFY(im.sweepThreshold.size() > 10);
                QCOMPARE(im.sweepEdgeShare.front(), 1.0); // threshold 0: everything at the edge
                QCOMPARE(im.sweepEdgeShare.back(), 0.0);  // threshold 1: nothing
                continue;
            }
            QVERIFY(releasedAt.count(im.version));
            // Shipping takes the edge<->center link: at least its 40 ms latency.
            QVERIFY(im.time >= releasedAt[im.version] + 0.040);
            QVERIFY(im.version > lastVersion[im.edge]);
            lastVersion[im.edge] = im.version;
            QVERIFY(im.bytes > 10000 && im.bytes < 40000); // the edge half, not the whole model (~400 KB)
        }
        QVERIFY2(releasedAt.size() >= 2, "no release after a center sync");
        QCOMPARE(int(lastVersion.size()), 6);
    }

    void partitionedEdgeAnswersDegraded() {
        SimOptions o;
        o.virtualSeconds = 2.0;
        SimCommand cut;
        cut.kind = SimCommand::Kind::PartitionLink;
        cut.node = 0;   // eu-0
        cut.nodeB = -1; // the center
        o.commands = {cut};
        const auto events = run(m_config, o);
        const Totals t = totalsOf(eventsOf<InferenceEvent>(events));
        QVERIFY(t.degraded > 0);
        QVERIFY(t.degraded < t.requests / 3); // one edge of six, and only what it would have forwarded
    }

    void readOnlyEdgesKeepServing() {
        // The center dies at 0.1 s: leases (1 s) expire, edges turn read-only
        // and keep answering, every unsure request degraded.
        SimOptions o;
        o.virtualSeconds = 3.0;
        SimCommand kill;
        kill.kind = SimCommand::Kind::KillNode;
        kill.at = 0.1;
        kill.node = -1;
        o.commands = {kill};
        const auto events = run(m_config, o);
        double readOnlyAt = -1;
        for (const auto &l : eventsOf<LeaseEvent>(events))
            if (l.mode == "read_only" && readOnlyAt < 0)
                readOnlyAt = l.time;
        QVERIFY(readOnlyAt > 0);
        const Totals after = totalsOf(eventsOf<InferenceEvent>(events), std::ceil(readOnlyAt), 1e18);
        QVERIFY(after.requests > 100);
        QCOMPARE(after.atEdge, after.requests);   // nobody else can answer
        QCOMPARE(after.bytes, std::uint64_t(0));  // nothing is sent to a center known to be down
        QVERIFY(after.degraded > 0);
    }

    void deterministicWithServing() {
        SimOptions o;
        o.virtualSeconds = 1.5;
        EventHash a, b;
        run(m_config, o, &a);
        run(m_config, o, &b);
        QCOMPARE(a.value(), b.value());
        QCOMPARE(a.count(), b.count());
    }

    void degradedAnswersComeAtTheTimeout() {
        // Everything is forwarded (threshold 1) and the timeout (30 ms) is
        // shorter than the 80 ms round trip: every answer is the edge's own,
        // at the timeout, never later.
        ClusterConfig c = m_config;
        c.knobs.confidenceThreshold = 1.0;
        c.serving.timeoutMs = 30;
        SimOptions o;
        o.virtualSeconds = 1.5;
        const auto intervals = eventsOf<InferenceEvent>(run(c, o));
        const Totals t = totalsOf(intervals);
        QVERIFY(t.requests > 100);
        QCOMPARE(t.degraded, t.requests);
        QCOMPARE(t.atEdge, t.requests);
        for (const auto &i : intervals)
            if (i.requests > 0) {
                QVERIFY2(i.p99Ms >= 30.0 && i.p99Ms < 30.1, qPrintable(QString::number(i.p99Ms)));
                QVERIFY(i.p50Ms >= 30.0);
            }
    }

    void strategyWithoutACenterServesNothing() {
        ClusterConfig c = m_config;
        c.strategy = "gossip";
        SimOptions o;
        o.virtualSeconds = 0.5;
        StrategyResult result;
        std::vector<SimEvent> events;
        o.observer = [&](const SimEvent &e) { events.push_back(e); };
        o.finalFullEvaluation = false;
        Simulation sim(c, m_train, m_trainSet.labels, m_test, o);
        result = sim.run();
        QVERIFY(eventsOf<InferenceEvent>(events).empty());
        QCOMPARE(result.servingBytes, std::uint64_t(0));
        bool noted = false;
        for (const auto &n : result.notes)
            noted = noted || n.find("serving is off") != std::string::npos;
        QVERIFY(noted);
    }

    void releaseCadenceIsLive() {
        auto releasesIn = [](const std::vector<SimEvent> &events) {
            int n = 0;
            for (const auto &im : eventsOf<EdgeImageEvent>(events))
                n += im.edge < 0;
            return n;
        };
        SimOptions control;
        control.virtualSeconds = 2.0;
        const int usual = releasesIn(run(m_config, control));
        QVERIFY2(usual > 3, qPrintable(QString::number(usual))); // one per center sync
        SimOptions o;
        o.virtualSeconds = 2.0;
        SimCommand slow;
        slow.kind = SimCommand::Kind::SetReleaseCadence;
        slow.value = 1000; // effectively never again
        o.commands = {slow};
        const auto events = run(m_config, o);
        bool applied = false;
        for (const auto &c : eventsOf<CommandEvent>(events))
            applied = applied || (c.issued.kind == SimCommand::Kind::SetReleaseCadence && c.applied);
        QVERIFY(applied);
        const int releases = releasesIn(events);
        QVERIFY2(releases <= 2, qPrintable(QString::number(releases))); // v0, and at most one before the command landed
    }
};

QTEST_GUILESS_MAIN(TestLiveServing)
#include "tst_live_serving.moc"
