// The simulator end to end on real Fashion-MNIST: small clusters, a few dozen
// real training steps each. Determinism, versions, leases, live shard moves,
// drift under non-IID data, baselines' byte accounting, faults, and the
// bounded event hand-off to another thread.
#include "tiny_cluster_data.h"
#include "long_test.h"
#include "core/data/fashion_mnist.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/strategies/model_copies.h"
#include "core/engine/sim/strategies/synaptic_owner.h"
#include "core/engine/synapse/flat_model.h"
#include "core/engine/tensor_data.h"
#include "events_of.h"

#include <ATen/Parallel.h>
#include <torch/types.h>

#include <QTest>

#include <atomic>
#include <map>
#include <thread>

using namespace synaptic;
using namespace synaptic::engine;

namespace {

struct Run {
    StrategyResult result;
    std::vector<SimEvent> events;
};

} // namespace

class TestSimulation : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    TensorSet m_test;
    ClusterConfig m_tiny;
    std::uint64_t m_plainFromCenter = 0; // firstCenterAnswerIsCodedToo's fp32 run, shared by its rows

    Run run(const ClusterConfig &config, SimOptions options,
            const std::function<void(const SimEvent &, const Simulation &)> &watch = {}) {
        Run r;
        Simulation *self = nullptr;
        options.observer = [&](const SimEvent &e) {
            r.events.push_back(e);
            if (watch && self)
                watch(e, *self);
        };
        options.finalFullEvaluation = false;
        Simulation sim(config, m_train, m_trainSet.labels, m_test, options);
        self = &sim;
        r.result = sim.run();
        return r;
    }

    SimOptions steps(std::uint64_t n) {
        SimOptions o;
        o.stepsPerEdge = n;
        return o;
    }

    // A data row per strategy, for the tests that run the same checks on each.
    static void strategyRows(std::initializer_list<const char *> strategies) {
        QTest::addColumn<QString>("strategy");
        for (const char *s : strategies)
            QTest::newRow(s) << s;
    }

    // The tiny config under the row's strategy, diloco's outer step every k steps.
    ClusterConfig tinyWith(const QString &strategy, int dilocoLocalSteps) const {
        ClusterConfig c = m_tiny;
        c.strategy = strategy.toStdString();
        c.knobs.dilocoLocalSteps = dilocoLocalSteps;
        return c;
    }

private Q_SLOTS:
    void initTestCase() { loadTinyClusterData(m_trainSet, m_train, m_test, m_tiny); }

    void sameSeedSameEventStream_data() { strategyRows({"synaptic", "param_server", "allreduce", "diloco", "gossip"}); }
    void sameSeedSameEventStream() {
        QFETCH(QString, strategy);
        if (strategy != "synaptic" && strategy != "gossip")
            SYNAPTIC_LONG_TEST(); // synaptic and gossip (random peers) by default
        ClusterConfig c = tinyWith(strategy, 4);
        const auto a = run(c, steps(8)).result;
        const auto b = run(c, steps(8)).result;
        QVERIFY(a.events > 10);
        QCOMPARE(a.events, b.events);
        QCOMPARE(a.eventHash, b.eventHash);
        QCOMPARE(a.totalBytes, b.totalBytes);
        QCOMPARE(a.virtualSeconds, b.virtualSeconds);
        QCOMPARE(a.samples, std::uint64_t(6 * 8 * 32));
        c.seed += 1;
        QVERIFY(run(c, steps(8)).result.eventHash != a.eventHash);
    }

    void versionsNeverGoBackwards() {
        std::vector<std::uint64_t> owner, center, cached;
        int checks = 0;
        bool backwards = false;
        run(m_tiny, steps(20), [&](const SimEvent &, const Simulation &sim) {
            const auto snap = sim.routing();
            std::size_t i = 0, j = 0, k = 0;
            for (const auto &row : snap->rows) {
                auto check = [&](std::vector<std::uint64_t> &seen, std::size_t &at, std::uint64_t v) {
                    if (seen.size() <= at)
                        seen.push_back(v);
                    backwards |= v < seen[at];
                    seen[at++] = v;
                };
                for (auto v : row->ownerVersion)
                    check(owner, i, v);
                check(center, j, row->centerVersion);
                for (auto v : row->cachedVersion)
                    check(cached, k, v);
            }
            ++checks;
        });
        QVERIFY(checks > 100);
        QVERIFY(!backwards);
        QVERIFY(*std::max_element(owner.begin(), owner.end()) >= 20); // owners really updated
        QVERIFY(*std::max_element(center.begin(), center.end()) >= 4); // and the center merged
    }

    void partitionedRegionTurnsReadOnlyAndCatchesUpFirst() {
        SimOptions o;
        o.virtualSeconds = 4.0;
        o.linkReportSeconds = 0.05;
        o.commands = {SimCommand{SimCommand::Kind::PartitionRegion, 0.5, -1, 0},
                      SimCommand{SimCommand::Kind::HealRegion, 2.5, -1, 0}};
        const std::vector<int> eu{0, 1, 2};
        std::map<int, std::vector<std::string>> modes;
        bool caughtUpWhenTraining = true;
        const auto r = run(m_tiny, o, [&](const SimEvent &e, const Simulation &sim) {
            const auto *lease = std::get_if<LeaseEvent>(&e);
            if (!lease || lease->edge > 2)
                return;
            modes[lease->edge].push_back(lease->mode);
            if (lease->mode == "training" && lease->time > 2.5) {
                // Catch-up is complete before training: every cached shard at its owner's version.
                const auto snap = sim.routing();
                for (const auto &row : snap->rows)
                    caughtUpWhenTraining &= row->cachedVersion[std::size_t(lease->edge)] == row->ownerVersion[0];
            }
        });
        for (int edge : eu) {
            const auto &m = modes[edge];
            // start: catching_up, training; partition: read_only; heal: catching_up, training
            QCOMPARE(m, (std::vector<std::string>{"catching_up", "training", "read_only", "catching_up", "training"}));
        }
        QVERIFY(caughtUpWhenTraining);
        QCOMPARE(r.result.gradientsSentWhileReadOnly, std::uint64_t(0));
        QCOMPARE(r.result.contributionsUnderExpiredLease, std::uint64_t(0));

        // While the whole region is read-only nothing moves inside it: no gradients, no values.
        double allReadOnly = 0, firstCatchUp = 1e9;
        for (const auto &l : eventsOf<LeaseEvent>(r.events)) {
            if (l.edge <= 2 && l.mode == "read_only")
                allReadOnly = std::max(allReadOnly, l.time);
            if (l.edge <= 2 && l.mode == "catching_up" && l.time > 2.5)
                firstCatchUp = std::min(firstCatchUp, l.time);
        }
        QVERIFY2(allReadOnly > 1.2 && allReadOnly < 1.7, qPrintable(QString::number(allReadOnly))); // lease 1 s after the last heartbeat through
        QVERIFY2(firstCatchUp > 2.5 && firstCatchUp < 3.0, qPrintable(QString::number(firstCatchUp)));
        std::uint64_t inRegion = 0, inRegionBefore = 0, otherRegion = 0;
        for (const auto &b : eventsOf<LinkBytesEvent>(r.events)) {
            const bool euLink = b.from >= 1 && b.from <= 3 && b.to >= 1 && b.to <= 3;
            const bool usLink = b.from >= 4 && b.to >= 4;
            if (euLink && b.time - b.interval >= allReadOnly && b.time <= firstCatchUp)
                inRegion += b.bytes;
            if (euLink && b.time <= 0.5)
                inRegionBefore += b.bytes;
            if (usLink && b.time - b.interval >= allReadOnly && b.time <= firstCatchUp)
                otherRegion += b.bytes;
        }
        QCOMPARE(inRegion, std::uint64_t(0));
        QVERIFY(inRegionBefore > 0);
        QVERIFY(otherRegion > 0); // the other region kept training
    }

    void ownerRejectsWritesUnderAnExpiredLease() {
        // The gate itself, fed crafted messages: an expired stamp, a
        // superseded epoch, and valid ones. Only the valid ones are applied.
        auto world = makeWorld(m_tiny, m_train, m_trainSet.labels, "cpu");
        SynapticOwner owner(world->context(SimWorld::nodeOfEdge(0)), nullptr);
        const int shard = owner.ownedShards().front();
        const auto before = owner.values(shard).clone();
        const auto size = world->plan().shards[std::size_t(shard)].parameters;
        auto gradients = [&](int origin, Lease lease, double writtenAt, std::uint64_t id, float value) {
            Message m;
            m.kind = MessageKind::Gradients;
            m.origin = origin;
            m.lease = lease;
            m.writtenAt = writtenAt;
            ShardItem item;
            item.shard = shard;
            item.data = torch::full({size}, value);
            item.contributionIds = {id};
            m.shards.push_back(item);
            return m;
        };
        owner.observeLease(Lease{5, 100}, 2); // edge 2 already holds epoch 5
        Outbox out;
        const double window = 0.1;
        owner.onGradients(1.0, gradients(1, Lease{1, 0.5}, 1.0, 101, 100.f), true, window, out);  // expired when written
        owner.onGradients(1.0, gradients(2, Lease{4, 9.0}, 1.0, 102, -100.f), true, window, out); // superseded epoch
        owner.onGradients(1.0, gradients(0, Lease{3, 9.0}, 1.0, 103, 1.f), true, window, out);   // valid: merge now
        // What the owner reported is what a driver folds into the ledger.
        ContributionLedger ledger;
        for (const auto &r : out.reports)
            if (const auto *l = std::get_if<LedgerReport>(&r))
                ledger.fold(*l);
        QCOMPARE(ledger.rejected, std::uint64_t(2));
        QCOMPARE(ledger.applied, std::uint64_t(1));
        QCOMPARE(ledger.appliedUnderExpiredLease, std::uint64_t(0));
        QCOMPARE(owner.version(shard), std::uint64_t(1));
        // Exactly one Adam step on the valid gradient (all ones), at the rate
        // for one of the region's three windows (the linear scaling rule):
        // every value moves by -lr / 3.
        QVERIFY(torch::allclose(owner.values(shard), before - world->config.learningRate / 3, 1e-5, 1e-6));
    }

    void liveShardMoveLosesNothingAndAppliesNothingTwice() {
        // Move three shards of eu while the region trains, one of them twice.
        const auto world = makeWorld(m_tiny, m_train, m_trainSet.labels, "cpu");
        std::vector<int> ownedByEu0;
        for (const auto &s : world->plan().shards)
            if (world->plan().owner[0][std::size_t(s.id)] == 0)
                ownedByEu0.push_back(s.id);
        QVERIFY(ownedByEu0.size() >= 3);
        using K = SimCommand::Kind;
        SimOptions o = steps(40);
        o.commands = {SimCommand{K::MoveShard, 0.25, ownedByEu0[0], 0, 1},
                      SimCommand{K::MoveShard, 0.25, ownedByEu0[1], 0, 2},
                      SimCommand{K::MoveShard, 0.40, ownedByEu0[2], 0, 1},
                      SimCommand{K::MoveShard, 0.55, ownedByEu0[2], 0, 2},
                      SimCommand{K::MoveShard, 0.60, ownedByEu0[0], 0, 4}}; // another region: refused
        std::shared_ptr<const RoutingSnapshot> last;
        const auto r = run(m_tiny, o, [&](const SimEvent &, const Simulation &sim) { last = sim.routing(); });
        const auto cmds = eventsOf<CommandEvent>(r.events);
        QCOMPARE(cmds.size(), std::size_t(5));
        for (int i = 0; i < 4; ++i)
            QVERIFY2(cmds[std::size_t(i)].applied, cmds[std::size_t(i)].detail.c_str());
        QVERIFY(!cmds[4].applied);
        QVERIFY2(QString::fromStdString(cmds[4].detail).contains("same region"), cmds[4].detail.c_str());
        int moves = 0;
        for (const auto &route : eventsOf<RoutingEvent>(r.events))
            moves += route.reason == "move";
        QCOMPARE(moves, 4);
        QCOMPARE(last->rows[std::size_t(ownedByEu0[0])]->owner[0], 1);
        QCOMPARE(last->rows[std::size_t(ownedByEu0[1])]->owner[0], 2);
        QCOMPARE(last->rows[std::size_t(ownedByEu0[2])]->owner[0], 2);
        // Count them: every window gradient sent was applied exactly once.
        const auto &res = r.result;
        QVERIFY(res.contributionsSent > 6 * 40 * 10);
        QCOMPARE(res.contributionsApplied, res.contributionsSent);
        QCOMPARE(res.contributionsRejected, std::uint64_t(0));
        QCOMPARE(res.contributionsDuplicated, std::uint64_t(0));
        QVERIFY(res.contributionsForwarded > 0); // in-flight gradients really were rerouted
    }

    void windowInVirtualMilliseconds() {
        // A step takes 75 ms of virtual time here, so a 200 ms window holds 3 steps.
        ClusterConfig byTime = m_tiny;
        byTime.knobs.aggregationWindowMs = 200;
        const auto a = run(m_tiny, steps(12)).result;
        const auto b = run(byTime, steps(12)).result;
        QCOMPARE(a.contributionsApplied, a.contributionsSent);
        QCOMPARE(b.contributionsApplied, b.contributionsSent);
        const double ratio = double(a.contributionsSent) / double(b.contributionsSent);
        QVERIFY2(ratio > 2.5 && ratio < 3.5, qPrintable(QString::number(ratio)));
    }

    void nonIidDriftsMoreThanIid() {
        SYNAPTIC_LONG_TEST(); // a statistical property, two 40-step runs
        ClusterConfig iid = m_tiny;
        ClusterConfig skewed = m_tiny;
        skewed.partition = "dirichlet";
        skewed.dirichletAlpha = 0.1;
        const auto a = run(iid, steps(40)).result;
        const auto b = run(skewed, steps(40)).result;
        QVERIFY(a.meanRegionDrift > 0);
        QVERIFY2(b.meanRegionDrift > 1.5 * a.meanRegionDrift,
                 qPrintable(QString("iid %1, non-iid %2").arg(a.meanRegionDrift).arg(b.meanRegionDrift)));
    }

    void parameterServerBytesAreExact() {
        ClusterConfig c = m_tiny;
        c.strategy = "param_server";
        const auto r = run(c, steps(5)).result;
        const std::uint64_t params = std::uint64_t(makeWorld(c, m_train, m_trainSet.labels, "cpu")->plan().totalParameters);
        const std::uint64_t buffers = 2 * (32 + 4 + 32 + 64); // running mean and var of the four batch-norms
        // The synaptic.v1 encoding, worked out by hand from protobuf's rules:
        // a flat float32 tensor field is tag + length + (dtype 2, packed shape
        // 1 + 1 + varint(n), data 1 + varint(4n) + 4n); gRPC adds 5 bytes.
        auto varint = [](std::uint64_t v) { std::uint64_t n = 1; while (v >= 128) { v >>= 7; ++n; } return n; };
        auto tensorField = [&](std::uint64_t n) {
            const std::uint64_t body = 2 + (2 + varint(n)) + (1 + varint(4 * n) + 4 * n);
            return 1 + varint(body) + body;
        };
        // Gradient up: kind 2, from 2, round (1..5) 2, sent_at 9, origin -1 2,
        // chunk -1 2 bytes, then the gradient and the statistics.
        const std::uint64_t up = 19 + tensorField(params) + tensorField(buffers) + 5;
        // Values down: kind 2, to 2, sent_at 9, origin 2, chunk 2, the values.
        const std::uint64_t down = 17 + tensorField(params) + 5;
        const std::uint64_t perStep = up + down;
        QCOMPARE(r.bytesToCenter, 6 * 5 * perStep);
        QCOMPARE(r.wanBytes, r.bytesToCenter);
        QCOMPARE(r.totalBytes, r.bytesToCenter);
        // What the WAN bytes are made of, kind by kind: nothing but the
        // two whole-model messages, their tensors and statistics exact.
        QCOMPARE(r.wanByKind.size(), std::size_t(2));
        const auto &g = r.wanByKind.at("full_gradient");
        QCOMPARE(g.messages, std::uint64_t(6 * 5));
        QCOMPARE(g.bytes, 6 * 5 * up);
        QCOMPARE(g.tensorBytes, 6 * 5 * 4 * params);
        QCOMPARE(g.tensorElements, 6 * 5 * params);
        QCOMPARE(g.batchNormBytes, 6 * 5 * 4 * buffers);
        const auto &v = r.wanByKind.at("full_values");
        QCOMPARE(v.messages, std::uint64_t(6 * 5));
        QCOMPARE(v.bytes, 6 * 5 * down);
        QCOMPARE(v.tensorBytes, 6 * 5 * 4 * params);
        QCOMPARE(v.tensorElements, 6 * 5 * params);
        QCOMPARE(v.batchNormBytes, std::uint64_t(0));
    }

    // The hierarchical baselines (issue 14) move what their arithmetic says:
    // payload floats counted from the algorithm, plus at most 64 bytes of
    // protobuf fields and gRPC framing per message.
    void hierarchicalAllReduceBytesFollowItsArithmetic() {
        ClusterConfig c = m_tiny;
        c.strategy = "hier_allreduce";
        const std::uint64_t steps = 4;
        const auto r = run(c, this->steps(steps)).result;
        const std::uint64_t P = std::uint64_t(makeWorld(c, m_train, m_trainSet.labels, "cpu")->plan().totalParameters);
        const std::uint64_t V = P + 2 * (32 + 4 + 32 + 64); // gradient and batch-norm statistics
        const std::uint64_t R = 2, n = 3;
        // Per step: a ring in each region moves 2(n-1) chunks per member (V
        // floats per phase in all), the leaders' ring 2(R-1) phases of V/R
        // per leader, and each leader sends the sum to its n-1 edges.
        const std::uint64_t lanFloats = R * 2 * (n - 1) * V + R * (n - 1) * V;
        const std::uint64_t wanFloats = 2 * (R - 1) * V;
        const std::uint64_t lanMessages = R * n * 2 * (n - 1) + R * (n - 1);
        const std::uint64_t wanMessages = R * 2 * (R - 1);
        QVERIFY2(r.wanBytes >= steps * 4 * wanFloats && r.wanBytes <= steps * (4 * wanFloats + 64 * wanMessages),
                 qPrintable(QString::number(r.wanBytes)));
        const std::uint64_t lan = r.totalBytes - r.wanBytes;
        QVERIFY2(lan >= steps * 4 * lanFloats && lan <= steps * (4 * lanFloats + 64 * lanMessages),
                 qPrintable(QString::number(lan)));
        QCOMPARE(r.bytesToCenter, std::uint64_t(0));
    }

    void hierarchicalDiLoCoBytesFollowItsArithmetic() {
        ClusterConfig c = m_tiny;
        c.strategy = "hier_diloco";
        c.knobs.dilocoLocalSteps = 4;
        const std::uint64_t steps = 8, rounds = steps / 4;
        const auto r = run(c, this->steps(steps)).result;
        const std::uint64_t P = std::uint64_t(makeWorld(c, m_train, m_trainSet.labels, "cpu")->plan().totalParameters);
        const std::uint64_t B = 2 * (32 + 4 + 32 + 64);
        const std::uint64_t V = P + B, R = 2, n = 3;
        // WAN: each round every leader sends its region's delta and
        // statistics, and gets the global model back. Nothing else crosses.
        const std::uint64_t wanFloats = rounds * R * (P + B + P);
        QVERIFY2(r.wanBytes >= 4 * wanFloats && r.wanBytes <= 4 * wanFloats + 64 * rounds * R * 2,
                 qPrintable(QString::number(r.wanBytes)));
        QCOMPARE(r.bytesToCenter, r.wanBytes);
        // LAN: the region's ring every step, the leader's relay every round.
        const std::uint64_t lanFloats = steps * R * 2 * (n - 1) * V + rounds * R * (n - 1) * P;
        const std::uint64_t lanMessages = steps * R * n * 2 * (n - 1) + rounds * R * (n - 1);
        const std::uint64_t lan = r.totalBytes - r.wanBytes;
        QVERIFY2(lan >= 4 * lanFloats && lan <= 4 * lanFloats + 64 * lanMessages, qPrintable(QString::number(lan)));
    }

    // Codecs change what goes on the wire, not whether the cluster learns:
    // int8 center deltas with fp16 values cut synaptic's WAN bytes by far
    // more than the fp32 run's, and the run still learns.
    void codecsCutBytesAndStillLearn() {
        ClusterConfig c = m_tiny;
        const auto plain = run(c, steps(40)).result;
        c.codecs.gradients = parseCodec("fp16");
        c.codecs.values = parseCodec("fp16");
        c.codecs.center = parseCodec("int8");
        const auto coded = run(c, steps(40)).result;
        QVERIFY2(coded.finalAccuracy > 0.6, qPrintable(QString::number(coded.finalAccuracy)));
        QVERIFY2(double(coded.wanBytes) < 0.4 * double(plain.wanBytes),
                 qPrintable(QString("%1 vs %2").arg(coded.wanBytes).arg(plain.wanBytes)));
        QVERIFY2(double(coded.totalBytes) < 0.6 * double(plain.totalBytes),
                 qPrintable(QString("%1 vs %2").arg(coded.totalBytes).arg(plain.totalBytes)));
        // The WAN, kind by kind: synaptic's crosses only to and from the
        // center, and the parts add up. A center delta's tensor bytes are
        // four per element at fp32; at int8 one, plus an fp32 scale per
        // chunk of 256. The statistics ride along at fp32 beside fp32 and at
        // fp16 beside int8 (statisticsCodec).
        for (const auto *r : {&plain, &coded}) {
            std::uint64_t sum = 0;
            for (const auto &[kind, t] : r->wanByKind) {
                sum += t.bytes;
                QVERIFY2(t.tensorBytes + t.batchNormBytes < t.bytes, kind.c_str());
                QVERIFY2(kind == "center_delta" || kind == "center_values" || kind == "heartbeat" ||
                             kind == "lease_grant" || kind == "owner_announce",
                         kind.c_str());
            }
            QCOMPARE(sum, r->wanBytes);
        }
        const std::uint64_t B = 2 * (32 + 4 + 32 + 64);
        QCOMPARE(plain.wanByKind.at("center_delta").batchNormBytes, plain.wanByKind.at("center_delta").messages * 4 * B);
        QCOMPARE(coded.wanByKind.at("center_delta").batchNormBytes, coded.wanByKind.at("center_delta").messages * 2 * B);
        const auto &p = plain.wanByKind.at("center_delta");
        QVERIFY(p.tensorElements > 0);
        QCOMPARE(p.tensorBytes, 4 * p.tensorElements);
        const auto &q = coded.wanByKind.at("center_delta");
        QVERIFY(q.tensorElements > 0);
        // At least one scale per 256 elements, at most one more per item
        // (a partial chunk); an item is a shard, a message at most all of them.
        const auto shards = std::uint64_t(makeWorld(c, m_train, m_trainSet.labels, "cpu")->plan().shards.size());
        QVERIFY2(q.tensorBytes >= q.tensorElements + 4 * q.tensorElements / 256 &&
                     q.tensorBytes <= q.tensorElements + 4 * q.tensorElements / 256 + 4 * q.messages * shards,
                 qPrintable(QString("%1 bytes for %2 elements").arg(q.tensorBytes).arg(q.tensorElements)));
    }

    // The zstd stage after int8 on the center's channel (issue 14): the run
    // learns as with plain int8 (the stage is lossless), and both ways the
    // center's tensors take fewer bytes than int8's floor of one per element
    // plus a scale per 256.
    void zstdStageSqueezesTheCenterChannel() {
        ClusterConfig c = m_tiny;
        c.codecs.gradients = parseCodec("fp16");
        c.codecs.values = parseCodec("fp16");
        c.codecs.center = parseCodec("int8+zstd");
        const auto r = run(c, steps(40)).result;
        QVERIFY2(r.finalAccuracy > 0.6, qPrintable(QString::number(r.finalAccuracy)));
        for (const char *kind : {"center_delta", "center_values"}) {
            const auto &k = r.wanByKind.at(kind);
            QVERIFY(k.tensorElements > 0);
            QVERIFY2(double(k.tensorBytes) < 0.97 * double(k.tensorElements),
                     qPrintable(QString("%1: %2 bytes for %3 elements").arg(kind).arg(k.tensorBytes).arg(k.tensorElements)));
        }
    }

    // Every region starts from the initial values, so even the center's
    // first answer to a region is a coded delta from them, applied where it
    // was meant to (no mismatch at the center afterwards). On this run the
    // center sends 0.26 of its fp32 bytes at int8 and 0.11 at top-k 5 %;
    // with each region's first answer whole at fp32 it sent 0.41 at int8.
    void firstCenterAnswerIsCodedToo_data() {
        QTest::addColumn<QString>("codec");
        QTest::addColumn<double>("maxShare"); // of the fp32 run's bytes from the center
        QTest::newRow("int8") << "int8" << 0.3;
        QTest::newRow("topk:0.05") << "topk:0.05" << 0.15;
    }
    void firstCenterAnswerIsCodedToo() {
        QFETCH(QString, codec);
        QFETCH(double, maxShare);
        auto fromCenter = [](const Run &r) {
            std::uint64_t sum = 0;
            for (const auto &b : eventsOf<LinkBytesEvent>(r.events))
                if (b.from == kCenterNode)
                    sum += b.bytes;
            return sum;
        };
        if (m_plainFromCenter == 0)
            m_plainFromCenter = fromCenter(run(m_tiny, steps(12)));
        ClusterConfig c = m_tiny;
        c.codecs.center = parseCodec(codec.toStdString());
        const auto coded = run(c, steps(12));
        int mismatches = 0, merges = 0;
        for (const auto &e : eventsOf<ConsistencyEvent>(coded.events)) {
            mismatches += e.mismatches;
            merges += e.checked > 0;
        }
        QVERIFY(merges > 2);
        QCOMPARE(mismatches, 0);
        const double share = double(fromCenter(coded)) / double(m_plainFromCenter);
        QVERIFY2(share < maxShare, qPrintable(QString("center sends %1 of its fp32 bytes at %2").arg(share).arg(codec)));
    }

    // The baselines' centers code their first answer to each node as a
    // delta from the initial model too (ModelCopies), as synaptic's center
    // does: under a lossy codec every answer on the WAN is one byte per
    // element plus the int8 scales, and every node applies it (a rejected
    // delta would stall its edges short of their steps).
    void baselineCentersCodeTheirFirstAnswer_data() { strategyRows({"param_server", "diloco", "hier_diloco"}); }
    void baselineCentersCodeTheirFirstAnswer() {
        QFETCH(QString, strategy);
        ClusterConfig c = tinyWith(strategy, 4);
        c.codecs.values = parseCodec("int8");
        c.codecs.center = parseCodec("int8");
        const auto r = run(c, steps(8)).result;
        QCOMPARE(r.samples, std::uint64_t(6 * 8 * 32));
        const auto &v = r.wanByKind.at("full_values");
        QVERIFY(v.messages >= 4);
        QVERIFY2(v.tensorBytes <= v.tensorElements + 4 * v.tensorElements / 256 + 4 * v.messages,
                 qPrintable(QString("%1 bytes for %2 elements").arg(v.tensorBytes).arg(v.tensorElements)));
        // Applied to the copy it was taken from: it learns as the fp32 run.
        ClusterConfig plain = tinyWith(strategy, 4);
        const double fp32 = run(plain, steps(8)).result.finalAccuracy;
        QVERIFY2(std::abs(r.finalAccuracy - fp32) < 0.05,
                 qPrintable(QString("%1 at int8, %2 at fp32").arg(r.finalAccuracy).arg(fp32)));
    }

    // Which answers ModelCopies codes from the initial model: the first
    // step's, to a node still at version 0. A node at version 0 later on
    // joined late (a live edge is handed the model of its time as version
    // 0) and gets the whole copy; fp32 always goes whole.
    void modelCopiesCodeOnlyTheFirstStepFromTheInitialModel() {
        at::manual_seed(3);
        const auto initial = at::randn({1000});
        const auto v1 = initial + 0.01 * at::randn({1000});
        const auto v2 = v1 + 0.01 * at::randn({1000});
        const auto int8 = parseCodec("int8");
        ModelCopies copies(initial);
        at::Tensor copy = initial.clone();
        std::uint64_t held = 0;
        for (const auto &[values, version] : {std::pair{v1, 1ull}, std::pair{v2, 2ull}}) {
            Message m = copies.valuesFor(7, held, values, version, int8);
            QVERIFY(m.tensorDelta);
            QCOMPARE(m.copyVersion, held);
            decodePayloads(m); // what the receiver's transport does
            QVERIFY(receiveModel(m, copy, held));
            QCOMPARE(held, std::uint64_t(version));
            // int8's error stays in the publisher's record: within a step of a chunk's scale.
            QVERIFY2((copy - values).abs().max().item<double>() < 1e-3, qPrintable(QString::number(version)));
        }
        const Message late = copies.valuesFor(8, 0, v2, 2, int8);
        QVERIFY(!late.tensorDelta);
        QVERIFY(at::equal(late.tensor, v2));
        const Message plain = copies.valuesFor(9, 0, v1, 1, parseCodec("fp32"));
        QVERIFY(!plain.tensorDelta);
        QVERIFY(at::equal(plain.tensor, v1));
    }

    // wan_by_kind's tensor bytes per codec, to the byte: fp16 gradients two
    // per element, top-k values four per kept value and four per index, and
    // the elements each stands for once decoded.
    void wanByKindCountsWhatEachCodecSends() {
        ClusterConfig c = m_tiny;
        c.strategy = "param_server";
        c.codecs.gradients = parseCodec("fp16");
        c.codecs.values = parseCodec("topk:0.05");
        const auto r = run(c, steps(3)).result;
        QCOMPARE(r.samples, std::uint64_t(6 * 3 * 32));
        const std::uint64_t P = std::uint64_t(makeWorld(c, m_train, m_trainSet.labels, "cpu")->plan().totalParameters);
        const std::uint64_t kept = std::uint64_t(std::ceil(0.05 * double(P)));
        const auto &g = r.wanByKind.at("full_gradient");
        QCOMPARE(g.tensorElements, 6 * 3 * P);
        QCOMPARE(g.tensorBytes, 2 * g.tensorElements);
        const auto &v = r.wanByKind.at("full_values");
        QCOMPARE(v.messages, std::uint64_t(6 * 3));
        QCOMPARE(v.tensorElements, 6 * 3 * P);
        QCOMPARE(v.tensorBytes, 6 * 3 * 8 * kept);
    }

    void linkBytesEventsAddUpToTheTotal() {
        const auto r = run(m_tiny, steps(10));
        std::uint64_t sum = 0;
        for (const auto &b : eventsOf<LinkBytesEvent>(r.events))
            sum += b.bytes;
        QCOMPARE(sum, r.result.totalBytes);
        QVERIFY(r.result.bytesToCenter > 0 && r.result.bytesToCenter < r.result.totalBytes / 4);
    }

    void baselinesLearn_data() {
        strategyRows({"synaptic", "param_server", "allreduce", "diloco", "gossip", "hier_allreduce", "hier_diloco"});
    }
    void baselinesLearn() {
        QFETCH(QString, strategy);
        // The flat baselines also learn in tst_task_strategies (language ID).
        if (strategy == "allreduce" || strategy == "diloco" || strategy == "gossip")
            SYNAPTIC_LONG_TEST();
        const ClusterConfig c = tinyWith(strategy, 8);
        const auto r = run(c, steps(40)).result;
        QVERIFY(r.curve.size() >= 2);
        QCOMPARE(r.curve.front().accuracy < 0.3, true);
        QVERIFY2(r.finalAccuracy > 0.6, qPrintable(QString("%1 reached only %2").arg(strategy).arg(r.finalAccuracy)));
        if (c.strategy == "allreduce" || c.strategy == "gossip" || c.strategy == "hier_allreduce")
            QCOMPARE(r.bytesToCenter, std::uint64_t(0));
    }

    // The last evaluation by samples comes at the last step, but gradients
    // and syncs still in flight change the model after it: the curve must
    // end with the model the run left (which the final accuracy measures),
    // not with the one of the last step.
    void curveEndsWithTheModelTheRunLeft_data() { strategyRows({"synaptic", "param_server", "hier_diloco"}); }
    void curveEndsWithTheModelTheRunLeft() {
        QFETCH(QString, strategy);
        const ClusterConfig c = tinyWith(strategy, 4);
        auto o = steps(10);
        o.evalEverySamples = 960; // 6 edges x 32 samples x 10 steps: the last point falls on the last step
        const auto r = run(c, o).result;
        QCOMPARE(r.samples, std::uint64_t(1920));
        QVERIFY(r.curve.size() >= 3);
        const auto &atLastStep = r.curve[r.curve.size() - 2];
        QCOMPARE(atLastStep.samples, r.samples);
        QVERIFY2(atLastStep.virtualSeconds < r.virtualSeconds, "the run ended at its last step");
        QCOMPARE(r.curve.back().virtualSeconds, r.virtualSeconds);
        QCOMPARE(r.curve.back().samples, r.samples);
    }

    void killedEdgeIsRoutedAroundAndRejoins() {
        using K = SimCommand::Kind;
        SimOptions o;
        o.virtualSeconds = 2.0;
        o.commands = {SimCommand{K::KillNode, 0.3, -1, -1, 1}, SimCommand{K::ReviveNode, 1.0, -1, -1, 1},
                      SimCommand{K::KillNode, 1.2, -1, -1, 1}, SimCommand{K::KillNode, 1.3, -1, -1, 1}};
        const auto r = run(m_tiny, o);
        const auto cmds = eventsOf<CommandEvent>(r.events);
        QCOMPARE(cmds.size(), std::size_t(4));
        QVERIFY(cmds[0].applied && cmds[1].applied && cmds[2].applied);
        QVERIFY(!cmds[3].applied);
        QCOMPARE(cmds[3].detail, std::string("already down"));
        std::vector<std::string> modes;
        for (const auto &l : eventsOf<LeaseEvent>(r.events))
            if (l.edge == 1)
                modes.push_back(l.mode);
        QCOMPARE(modes, (std::vector<std::string>{"catching_up", "training", "down", "catching_up", "training", "down"}));
        QCOMPARE(r.result.contributionsDuplicated, std::uint64_t(0));
        // Its region kept training while it was down: a step of 32 samples
        // takes 0.08 virtual s at 10 GFLOP/s, so 2 s hold at most 25 per edge;
        // the five live edges made more than 18 each (with waits for owners).
        QVERIFY2(r.result.samples > 5 * 18 * 32, qPrintable(QString::number(r.result.samples)));
    }

    void centerRestartKeepsSyncing() {
        // The center dies with deltas in flight and comes back: the reliable
        // channel redelivers both ways; nothing is lost or counted twice.
        using K = SimCommand::Kind;
        SimOptions o = steps(30);
        o.commands = {SimCommand{K::KillNode, 0.5, -1, -1, -1}, SimCommand{K::ReviveNode, 0.8, -1, -1, -1}};
        const auto r = run(m_tiny, o);
        QVERIFY2(r.result.stoppedEarly.empty(), r.result.stoppedEarly.c_str());
        int mergesAfter = 0, mismatches = 0;
        for (const auto &c : eventsOf<ConsistencyEvent>(r.events)) {
            mergesAfter += c.time > 0.8;
            mismatches += c.mismatches;
        }
        QVERIFY(mergesAfter > 0);
        QCOMPARE(mismatches, 0);
        QCOMPARE(r.result.contributionsApplied, r.result.contributionsSent);
        QCOMPARE(r.result.contributionsDuplicated, std::uint64_t(0));
    }

    // A node killed for good (an edge, or -1: the center). The stop
    // message names what the run waits for.
    void budgetRunEndsWhenANodeNeverReturns_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("killed");
        QTest::addColumn<bool>("stalls");
        QTest::addColumn<QString>("waitingFor");
        QTest::newRow("synaptic routes around it") << "synaptic" << 4 << false << "";
        QTest::newRow("allreduce's ring breaks") << "allreduce" << 4 << true << "";
        QTest::newRow("synaptic's leases need the center") << "synaptic" << -1 << true << "center: down";
    }
    void budgetRunEndsWhenANodeNeverReturns() {
        QFETCH(QString, strategy);
        QFETCH(int, killed);
        QFETCH(bool, stalls);
        QFETCH(QString, waitingFor);
        ClusterConfig c = m_tiny;
        c.strategy = strategy.toStdString();
        SimOptions o = steps(12);
        o.commands = {SimCommand{SimCommand::Kind::KillNode, 0.3, -1, -1, killed}};
        const auto r = run(c, o).result;
        const QString stop = QString::fromStdString(r.stoppedEarly);
        if (!stop.isEmpty())
            qInfo("%s", qPrintable(stop));
        QCOMPARE(!stop.isEmpty(), stalls);
        if (stalls)
            QVERIFY2(stop.contains("without a training step") && stop.contains(waitingFor), qPrintable(stop));
        if (killed >= 0)
            QVERIFY(r.samples < 6 * 12 * 32); // the dead edge's steps are missing
        else
            QCOMPARE(r.samples, std::uint64_t(6 * 12 * 32)); // trained within their leases; the last syncs wait
    }

    void refusedCommandsSayWhy() {
        using K = SimCommand::Kind;
        SimOptions o = steps(5);
        SimCommand shortLease{K::SetLeaseSeconds, 0, -1, -1, -1, -1, 0.1};
        SimCommand window{K::SetAggregationWindow, 0, -1, -1, -1, -1, 2};
        SimCommand threshold{K::SetConfidenceThreshold, 0, -1, -1, 2, -1, 0.9};
        SimCommand noEdge{K::SetConfidenceThreshold, 0, -1, -1, 99, -1, 0.9};
        o.commands = {shortLease, window, SimCommand{K::MoveShard, 0, 999, 0, 1}, threshold, noEdge};
        const auto cmds = eventsOf<CommandEvent>(run(m_tiny, o).events);
        QCOMPARE(cmds.size(), std::size_t(5));
        QVERIFY(cmds[3].applied);
        QCOMPARE(cmds[3].command, std::string("set_confidence_threshold 0.9 edge 2"));
        QCOMPARE(cmds[3].issued.node, 2); // views read the structured command, not the text
        QVERIFY(!cmds[4].applied);
        QCOMPARE(cmds[4].detail, std::string("no such edge"));
        QVERIFY(!cmds[0].applied);
        QVERIFY(QString::fromStdString(cmds[0].detail).contains("longer than the heartbeat"));
        QVERIFY(cmds[1].applied);
        QVERIFY(!cmds[2].applied);
        QCOMPARE(cmds[2].detail, std::string("no shard 999"));
    }

    // An observer on another thread that stalls for the whole run (the
    // engine never waits for it) then gets every state event the engine
    // emitted, in order, and per-link byte totals as the engine counted them.
    void observerOnAnotherThreadNeverBlocksTheEngine() {
        SimEventQueue queue(4);
        std::atomic<bool> done{false};
        std::vector<SimEvent> received;
        std::thread consumer([&] {
            while (!done)
                std::this_thread::sleep_for(std::chrono::milliseconds(20)); // a GUI stuck in a dialog
            auto batch = queue.drain();
            received.insert(received.end(), batch.begin(), batch.end());
        });
        SimOptions o = steps(10);
        o.queue = &queue;
        const auto r = run(m_tiny, o);
        done = true;
        consumer.join();
        auto rest = queue.drain();
        received.insert(received.end(), rest.begin(), rest.end());
        // The audit history goes to observers only, never to the views' queue.
        const auto audits = std::uint64_t(std::count_if(r.events.begin(), r.events.end(), [](const SimEvent &e) {
            return std::holds_alternative<AuditEvent>(e);
        }));
        QVERIFY(audits > 0);
        QCOMPARE(queue.pushed(), r.result.events - audits);
        QCOMPARE(received.size() + queue.coalesced(), r.result.events - audits);
        QVERIFY(!received.empty());
        QVERIFY(queue.coalesced() > 0); // the observer did fall behind, so samples were folded
        QCOMPARE(viewStateEventTexts(received), viewStateEventTexts(r.events));
        QCOMPARE(bytesPerLink(received), bytesPerLink(r.events));
    }
};

QTEST_APPLESS_MAIN(TestSimulation)
#include "tst_simulation.moc"
