// Issue 5's "a recording replays exactly": a real simulation on Fashion-MNIST
// is recorded (scheduled and live commands included), the stream read back
// equals the one the engine emitted, seeks land on the state folded from the
// stream, and rerunning from the recording reproduces every event and metric
// bit for bit.
#include "test_threads.h"
#include "core/engine/compute_threads.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/cluster_config_json.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"
#include "core/session/record_codec.h"
#include "core/session/session_file.h"
#include "core/session/session_recorder.h"
#include "core/session/session_rerun.h"


#include <QTemporaryDir>
#include "events_of.h"

#include <QTest>

#include <cstring>
#include <map>

using namespace synaptic;
using namespace synaptic::engine;
using session::eventTime;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameRows(const RoutingSnapshot &a, const RoutingSnapshot &b) {
    if (a.rows.size() != b.rows.size() || a.regionOfEdge != b.regionOfEdge || a.revision != b.revision)
        return false;
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        const auto &x = *a.rows[i];
        const auto &y = *b.rows[i];
        if (x.shard.id != y.shard.id || x.shard.layer != y.shard.layer || x.shard.rowBegin != y.shard.rowBegin ||
            x.owner != y.owner || x.ownerVersion != y.ownerVersion || x.centerVersion != y.centerVersion ||
            x.cachedVersion != y.cachedVersion || x.lastSync != y.lastSync ||
            !sameBits(x.parameterDrift, y.parameterDrift))
            return false;
    }
    return true;
}

} // namespace

class TestSessionRecording : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    ClusterConfig m_config;
    SimData m_data;
    std::string m_path;
    // LibTorch's intra-op threads the recording runs on (SYNAPTIC_TEST_THREADS,
    // or 2): a rerun must use as many, since the bits depend on the count.
    int m_threads = 0;
    std::vector<SimEvent> m_emitted;                 // what the engine emitted, in order
    std::vector<std::pair<double, std::shared_ptr<const RoutingSnapshot>>> m_tables; // routing at chosen events
    StrategyResult m_result;
    SimOptions m_options; // what the run was made with (no observer)

private Q_SLOTS:
    void initTestCase() {
        setTestThreads();
        m_threads = at::get_num_threads();
        m_config = loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() + "/tiny_cluster.json");
        // Serving on (issue 6): its events and its config travel in the file too.
        m_config.serving.requestRate = 30;
        m_config.serving.releaseEverySyncs = 1;
        m_data = loadSimData(m_config, "cpu");
        m_path = m_dir.filePath("run.synrec").toStdString();

        SimOptions o;
        o.stepsPerEdge = 14;
        o.evalEverySamples = 32 * 6 * 3;
        o.finalFullEvaluation = false;
        o.linkReportSeconds = 0.05;
        SimCommand partition;
        partition.kind = SimCommand::Kind::PartitionLink;
        partition.at = 0.02;
        partition.node = 0;
        partition.nodeB = -1;
        SimCommand heal = partition;
        heal.kind = SimCommand::Kind::HealLink;
        heal.at = 0.3;
        o.commands = {partition, heal};

        session::RecorderOptions ro;
        ro.chunkRawBytes = 4096;       // many chunks...
        ro.keyframeEverySeconds = 0.1; // ...and keyframes, so seeks start mid-run
        ro.routingEverySeconds = 0.02;
        session::SessionRecorder recorder(m_path, "tst_session_recording", ro);
        Simulation *sim = nullptr;
        auto record = recorder.observer();
        o.observer = [&](const SimEvent &e) {
            record(e);
            m_emitted.push_back(e);
            if (m_emitted.size() % 40 == 0 && sim)
                m_tables.emplace_back(eventTime(e), sim->routing());
            // Live commands, as from the GUI: they land wherever the engine is.
            if (m_emitted.size() == 60 && sim) {
                SimCommand window;
                window.kind = SimCommand::Kind::SetAggregationWindow;
                window.value = 2;
                sim->submit(window);
                SimCommand move;
                move.kind = SimCommand::Kind::MoveShard;
                move.shard = 0;
                move.region = 0;
                move.node = 2;
                sim->submit(move);
            }
        };
        Simulation s(m_config, m_data.train, m_data.trainLabels, m_data.test, o);
        sim = &s;
        recorder.beginRun(m_config, o, &s);
        m_options = o;
        m_options.observer = {};
        m_result = s.run();
        recorder.endRun(m_result);
        recorder.close();
        const auto stats = recorder.stats();
        QCOMPARE(stats.coalesced, 0u);
        QVERIFY2(stats.error.empty(), stats.error.c_str());
        QCOMPARE(stats.events, std::uint64_t(m_emitted.size()));
        QVERIFY2(stats.chunks > 5, "the small chunk limit must give several chunks");
        QVERIFY(m_tables.size() > 3);
    }

    void streamReadBackEqualsWritten() {
        session::SessionFile file(m_path);
        QVERIFY(file.indexed());
        QVERIFY(file.problems().empty());
        QCOMPARE(file.runs().size(), std::size_t(1));
        const auto &run = file.runs()[0];
        QVERIFY(run.end.has_value());
        QCOMPARE(run.end->event_hash(), m_result.eventHash);
        QCOMPARE(run.events, std::uint64_t(m_emitted.size()));
        const auto data = file.readRun(0);
        QCOMPARE(data.events.size(), m_emitted.size());
        int commands = 0;
        for (std::size_t i = 0; i < m_emitted.size(); ++i) {
            QCOMPARE(data.events[i].index(), m_emitted[i].index());
            QCOMPARE(describeEvent(data.events[i]), describeEvent(m_emitted[i]));
            if (const auto *c = std::get_if<CommandEvent>(&m_emitted[i])) {
                const auto &back = std::get<CommandEvent>(data.events[i]);
                QCOMPARE(back.boundary, c->boundary);
                QCOMPARE(int(back.issued.kind), int(c->issued.kind));
                QCOMPARE(back.issued.node, c->issued.node);
                ++commands;
            }
            if (const auto *m = std::get_if<MetricEvent>(&m_emitted[i])) {
                const auto &back = std::get<MetricEvent>(data.events[i]);
                QVERIFY(sameBits(back.loss, m->loss) && sameBits(back.accuracy, m->accuracy) &&
                        sameBits(back.exitAccuracy, m->exitAccuracy));
            }
        }
        QVERIFY2(commands >= 4, "two scheduled and two live commands were recorded");
        int inference = 0, images = 0;
        for (const auto &e : data.events) {
            inference += std::holds_alternative<InferenceEvent>(e);
            images += std::holds_alternative<EdgeImageEvent>(e);
        }
        QVERIFY2(inference > 3 && images > 6, "serving's intervals and edge images were recorded");
        QVERIFY(!data.routing.empty());
    }

    void configRoundTripsExactly() {
        const ClusterConfig back = parseClusterConfig(clusterConfigToJson(m_config), "round trip");
        QCOMPARE(clusterConfigToJson(back), clusterConfigToJson(m_config));
        QVERIFY(sameBits(back.edgeCenter.latencySeconds, m_config.edgeCenter.latencySeconds));
        QVERIFY(sameBits(back.intraRegion.bandwidthBitsPerSecond, m_config.intraRegion.bandwidthBitsPerSecond));
    }

    void seekLandsOnTheFoldedState() {
        session::SessionFile file(m_path);
        const auto data = file.readRun(0);
        int keyframedSeeks = 0;
        for (const auto &[t, table] : m_tables) {
            const session::SessionState s = file.stateAt(0, t);
            // The same fold over the stream read in full, up to t.
            session::SessionState want;
            for (const auto &e : data.events)
                if (eventTime(e) <= t)
                    want.apply(e);
            std::shared_ptr<const RoutingSnapshot> latest;
            for (const auto &r : data.routing)
                if (r.time <= t)
                    latest = r.snapshot;
            QVERIFY(s.routing && latest);
            QVERIFY2(sameRows(*s.routing, *latest), "the seek's routing table is the latest sample at or before t");
            QCOMPARE(s.leases.size(), want.leases.size());
            for (const auto &[edge, lease] : want.leases)
                QCOMPARE(s.leases.at(edge).mode, lease.mode);
            QCOMPARE(s.metrics.size(), want.metrics.size());
            for (const auto &[scope, metric] : want.metrics)
                QVERIFY(sameBits(s.metrics.at(scope).accuracy, metric.accuracy));
            QVERIFY(s.time <= t);
            keyframedSeeks += t > file.chunks()[1].firstTime;
        }
        QVERIFY(keyframedSeeks > 0);
        // The sample taken at an event time is the engine's table then, row for row.
        int exact = 0;
        for (const auto &[t, table] : m_tables)
            for (const auto &r : data.routing)
                if (r.time == t && sameRows(*r.snapshot, *table))
                    ++exact;
        QVERIFY2(exact > 0, "some routing sample coincides with a table the test took at the same event");
    }

    void rerunReproducesMetricsBitForBit() {
        session::SessionFile file(m_path);
        const auto data = file.readRun(0);
        const auto plan = session::rerunPlan(file.runs()[0], data);
        QCOMPARE(plan.config.seed, m_config.seed);
        // OpenBLAS's pool is recorded with the run (its bits follow it),
        // and a rerun restores it: the pool is changed first.
        QCOMPARE(plan.blasThreads, engine::blasThreads());
        const bool openblas = engine::blasThreads() > 0;
        if (openblas)
            QVERIFY(engine::setBlasThreads(plan.blasThreads == 1 ? 2 : 1));
        QCOMPARE(plan.options.commands.size(), std::size_t(4));
        for (const auto &c : plan.options.commands)
            QVERIFY(c.atBoundary > 0);
        const auto result = session::rerunAndCompare(file.runs()[0], data, m_threads);
        if (openblas)
            QCOMPARE(engine::blasThreads(), plan.blasThreads);
        QVERIFY2(result.identical, result.firstDifference.c_str());
        QCOMPARE(result.compared, std::uint64_t(m_emitted.size()));
        QVERIFY(result.metricsCompared >= 3);
    }

    void rerunNoticesADifferentStream() {
        // Falsify one recorded metric: the comparison must catch it.
        session::SessionFile file(m_path);
        auto data = file.readRun(0);
        for (auto &e : data.events)
            if (auto *m = std::get_if<MetricEvent>(&e); m && m->scope == "global" && m->time > 0) {
                m->accuracy = std::nextafter(m->accuracy, 2.0);
                break;
            }
        const auto result = session::rerunAndCompare(file.runs()[0], data, m_threads);
        QVERIFY(!result.identical);
        QVERIFY(result.firstDifference.find("metric") != std::string::npos);
    }

    // A rerun told to use another LibTorch thread count than the recording
    // differs (its reductions sum in another order), and its first
    // difference says why: both counts, not only the event.
    void aRerunOnOtherThreadsSaysSo() {
        session::SessionFile file(m_path);
        const int other = m_threads == 1 ? 2 : 1;
        const auto result = session::rerunAndCompare(file.runs()[0], file.readRun(0), other);
        QVERIFY(!result.identical);
        const std::string note = "the recording ran on " + std::to_string(m_threads) +
                                 " LibTorch thread(s); this rerun on " + std::to_string(other);
        QVERIFY2(result.firstDifference.find(note) != std::string::npos, result.firstDifference.c_str());
    }

    // A writer far behind (4 samples may wait) on a two-run file, fed the
    // run's events as fast as they come: samples fold, but only within
    // their run; every state event is written; each run keeps its own link
    // byte totals and says how many of its samples were folded; a rerun
    // compares the state events and finds them identical.
    void aWriterFarBehindFoldsSamplesWithinEachRunOnly() {
        const std::string path = m_dir.filePath("behind.synrec").toStdString();
        session::RecorderOptions ro;
        ro.queueCapacity = 4;
        {
            session::SessionRecorder recorder(path, "tst_session_recording", ro);
            for (int run = 0; run < 2; ++run) {
                recorder.beginRun(m_config, m_options, nullptr);
                for (const auto &e : m_emitted)
                    recorder.record(e);
                recorder.endRun(m_result);
            }
            recorder.close();
            QVERIFY(recorder.stats().coalesced > 0);
        }
        session::SessionFile file(path);
        QCOMPARE(int(file.runs().size()), 2);
        std::uint64_t folded = 0;
        for (int run = 0; run < 2; ++run) {
            const auto data = file.readRun(run);
            const auto &end = file.runs()[std::size_t(run)].end;
            QVERIFY(end.has_value());
            QCOMPARE(stateEventTexts(data.events), stateEventTexts(m_emitted));
            QCOMPARE(bytesPerLink(data.events), bytesPerLink(m_emitted));
            QCOMPARE(end->coalesced(), std::uint64_t(m_emitted.size() - data.events.size()));
            folded += end->coalesced();
        }
        QVERIFY(folded > 0);
        QVERIFY(file.problems().empty());

        const auto rerun = session::rerunAndCompare(file.runs()[0], file.readRun(0), m_threads);
        if (file.runs()[0].end->coalesced() > 0) {
            QVERIFY(rerun.statesOnly);
            QCOMPARE(rerun.recorded, std::uint64_t(stateEventTexts(m_emitted).size()));
        }
        QVERIFY2(rerun.identical, rerun.firstDifference.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSessionRecording)
#include "tst_session_recording.moc"
