// How a synaptic merge weighs what it has (issue 14, the late-run drop):
// an owner steps in proportion to the share of its region's windows a merge
// holds (the linear scaling rule), so the last edge still training cannot
// move a shard as far as the whole region, and shards held back for a slow
// owner count every window they span (up to four times the rate); a region
// that trains alone moves the global model by its share of the regions the
// center still hears from (an edge that left stops heartbeating); and the
// center evaluates with the batch-norm statistics of those regions, not
// with those of regions that are gone. Under knobs.local_updates an owner
// adds the mean of its region's moves instead (FedAvg; the edge's side:
// tst_local_updates), and beside gradients when one edge alone takes them.
// Under knobs.staleness_weighting a stale gradient counts less.
#include "core/data/fashion_mnist.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/strategies/synaptic_center.h"
#include "core/engine/sim/strategies/synaptic_edge.h"
#include "core/engine/sim/strategies/synaptic_owner.h"
#include "core/engine/synapse/shard_optimizer.h"
#include "core/engine/tensor_data.h"
#include "test_threads.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <optional>
#include <variant>

#include <QTest>

using namespace synaptic;
using namespace synaptic::engine;

class TestMergeWeighting : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    ClusterConfig m_config;

    Message gradientFrom(int edge, int shard, std::uint64_t version, std::int64_t size, std::uint32_t windows = 1) {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(std::uint64_t(11 + edge));
        Message m;
        m.kind = MessageKind::Gradients;
        m.origin = edge;
        m.lease = Lease{1, 100};
        m.writtenAt = 1.0;
        m.round = 1;
        ShardItem item;
        item.shard = shard;
        item.version = version;
        item.data = at::randn({size}, gen, at::kFloat).mul_(0.01);
        item.contributionIds = {std::uint64_t(edge + 1)};
        item.windows = windows;
        m.shards.push_back(std::move(item));
        return m;
    }

    // eu-0's owner role (no host model) in a world made from `config`, and
    // the first shard it owns: where each merge test below starts.
    struct OwnerUnderTest {
        std::unique_ptr<SimWorld> world;
        std::unique_ptr<SynapticOwner> owner;
        int shard = 0;
        std::int64_t size = 0; // the shard's parameters
    };
    OwnerUnderTest ownerOf(const ClusterConfig &config) {
        OwnerUnderTest t;
        t.world = makeWorld(config, m_train, m_trainSet.labels, "cpu");
        t.owner = std::make_unique<SynapticOwner>(t.world->context(SimWorld::nodeOfEdge(0)), nullptr);
        t.shard = t.owner->ownedShards().front();
        t.size = t.world->plan().shards[std::size_t(t.shard)].parameters;
        return t;
    }

    // A learning-rate schedule decaying from half of `budget` steps to a
    // fifth of the rate, the owner's edge having pushed `hostSteps`.
    struct Schedule {
        std::uint64_t budget = 0;
        std::uint64_t hostSteps = 0;
    };

    // Mean absolute change of the shard's values after one merge of the
    // windows of `contributors` (of the region's three).
    double firstStepSize(int contributors, std::uint32_t windowsEach = 1, std::optional<Schedule> schedule = {}) {
        auto config = m_config;
        if (schedule) {
            config.lrDecayFrom = 0.5;
            config.lrFinal = 0.2;
        }
        auto world = makeWorld(config, m_train, m_trainSet.labels, "cpu");
        world->stepsPerEdge = schedule ? schedule->budget : 0;
        const std::uint64_t hostSteps = schedule ? schedule->hostSteps : 0;
        SynapticOwner owner(world->context(SimWorld::nodeOfEdge(0)), nullptr, [hostSteps] { return hostSteps; });
        const int shard = owner.ownedShards().front();
        const auto size = world->plan().shards[std::size_t(shard)].parameters;
        const at::Tensor before = owner.values(shard).clone();
        Outbox out;
        for (int edge = 0; edge < contributors; ++edge)
            owner.onGradients(1.0, gradientFrom(edge, shard, 0, size, windowsEach), true, 0.1, out);
        if (contributors < 3)
            owner.onMergeDeadline(1.1, 0, true, out); // the rest never came
        if (owner.version(shard) != 1)
            return -1;
        return (owner.values(shard) - before).abs().mean().item<double>();
    }

private Q_SLOTS:
    void initTestCase() {
        setTestThreads();
        m_trainSet = data::loadFashionMnist(data::resolveDataDir(""), data::Split::Train, 2000);
        m_train = toTensors(m_trainSet, "cpu");
        m_config = loadClusterConfig(QFINDTESTDATA("data/tiny_cluster.json").toStdString());
        QCOMPARE(m_config.regions[0].edges.size(), std::size_t(3));
    }

    void aMergeStepsInProportionToTheWindowsItHolds() {
        // Adam's first step moves every element by about lr whatever the
        // gradient's scale, so the share must come from the rate.
        const double lr = m_config.learningRate;
        const double whole = firstStepSize(3);
        const double one = firstStepSize(1);
        const double two = firstStepSize(2);
        QVERIFY2(std::abs(whole - lr) < 0.05 * lr, qPrintable(QString::number(whole)));
        QVERIFY2(std::abs(one - lr / 3) < 0.05 * lr / 3, qPrintable(QString::number(one)));
        QVERIFY2(std::abs(two - 2 * lr / 3) < 0.05 * 2 * lr / 3, qPrintable(QString::number(two)));
    }

    // The learning-rate schedule at the owner: a merge is placed on it by
    // the steps the owner's own edge has pushed, so the whole region's merge
    // steps at the full rate before lr_decay_from and at lr_final of it at
    // the budget's end (issue 14: every strategy anneals alike).
    void aMergeAtTheBudgetsEndStepsAtTheScheduledRate() {
        const double lr = m_config.learningRate;
        const double early = firstStepSize(3, 1, Schedule{4, 1});
        const double late = firstStepSize(3, 1, Schedule{4, 4});
        QVERIFY2(std::abs(early - lr) < 0.05 * lr, qPrintable(QString::number(early)));
        QVERIFY2(std::abs(late - 0.2 * lr) < 0.05 * 0.2 * lr, qPrintable(QString::number(late)));
        // No budget: "the end" is unknown, the rate stays.
        const double endless = firstStepSize(3, 1, Schedule{0, 4});
        QVERIFY2(std::abs(endless - lr) < 0.05 * lr, qPrintable(QString::number(endless)));
    }

    void heldWindowsScaleTheStep() {
        // Shards an edge held back for a slow owner carry the windows they
        // span: one edge's two held windows step as far as two edges' one,
        // and the scale stops at four times the rate.
        const double lr = m_config.learningRate;
        const double held = firstStepSize(1, 2);
        QVERIFY2(std::abs(held - 2 * lr / 3) < 0.05 * 2 * lr / 3, qPrintable(QString::number(held)));
        const double many = firstStepSize(3, 100);
        QVERIFY2(std::abs(many - 4 * lr) < 0.05 * 4 * lr, qPrintable(QString::number(many)));
    }

    // knobs.local_updates: what the edges send are their replicas' moves,
    // and the owner adds their sum over the region's edge count: the
    // region's model is the mean of its edges' replicas. A move's claim of
    // several windows does not weigh it (the move holds all its steps), and
    // a merge that holds one edge of three moves the shard a third as far.
    void anOwnerAddsTheMeanOfItsRegionsMoves() {
        auto config = m_config;
        config.knobs.localUpdates = true;
        auto [world, ownerPtr, shard, size] = ownerOf(config);
        SynapticOwner &owner = *ownerPtr;
        at::Tensor expected = owner.values(shard).clone();
        std::vector<at::Tensor> moves;
        Outbox out;
        for (int edge = 0; edge < 3; ++edge) {
            auto m = gradientFrom(edge, shard, 0, size, edge == 1 ? 3 : 1);
            moves.push_back(m.shards[0].data.clone());
            owner.onGradients(1.0, std::move(m), true, 0.1, out);
        }
        QCOMPARE(owner.version(shard), std::uint64_t(1));
        expected += (moves[0] + moves[1] + moves[2]) / 3;
        QVERIFY2(at::allclose(owner.values(shard), expected, 0, 1e-6),
                 qPrintable(QString::number((owner.values(shard) - expected).abs().max().item<double>())));

        // One edge's move alone, at the merge deadline: a third of it.
        auto lone = gradientFrom(2, shard, 1, size);
        lone.shards[0].contributionIds = {99};
        const at::Tensor move = lone.shards[0].data.clone();
        owner.onGradients(2.0, std::move(lone), true, 0.1, out);
        owner.onMergeDeadline(2.1, 1, true, out);
        QCOMPARE(owner.version(shard), std::uint64_t(2));
        expected += move / 3;
        QVERIFY(at::allclose(owner.values(shard), expected, 0, 1e-6));
    }

    // One edge under local updates (its own local_updates key), the rest on
    // gradients: the owner adds that edge's move over the region's edge
    // count and steps on the others' gradients, weighed by their windows
    // (edge 0 claims two), at their share of the rate, both in one merge.
    // The move's claim of three windows weighs nothing. A second merge of
    // gradients alone checks the first one's mean through Adam's moments
    // (a first step from a fresh state moves by about the rate whatever the
    // mean's scale).
    void aMergeTakesOneEdgesMoveBesideTheOthersGradients() {
        auto config = m_config;
        config.regions[0].edges[2].localUpdates = true;
        QVERIFY(!config.localUpdatesAt(0) && !config.localUpdatesAt(1) && config.localUpdatesAt(2));
        auto [world, ownerPtr, shard, size] = ownerOf(config);
        SynapticOwner &owner = *ownerPtr;
        at::Tensor expected = owner.values(shard).clone();
        std::vector<at::Tensor> items;
        Outbox out;
        for (int edge = 0; edge < 3; ++edge) {
            auto m = gradientFrom(edge, shard, 0, size, edge == 0 ? 2 : edge == 2 ? 3 : 1);
            items.push_back(m.shards[0].data.clone());
            owner.onGradients(1.0, std::move(m), true, 0.1, out);
        }
        QCOMPARE(owner.version(shard), std::uint64_t(1));
        expected += items[2] / 3;
        AdamState state;
        AdamOptions adam;
        adam.lr = config.learningRate; // three windows of gradients: the region's whole share
        adamStep(expected, (2 * items[0] + items[1]) / 3, state, adam);
        double off = (owner.values(shard) - expected).abs().max().item<double>();
        QVERIFY2(off < 1e-7, qPrintable(QString::number(off)));

        auto a = gradientFrom(0, shard, 1, size);
        auto b = gradientFrom(1, shard, 1, size);
        a.shards[0].contributionIds = {10};
        b.shards[0].contributionIds = {11};
        const at::Tensor mean = (a.shards[0].data + b.shards[0].data) / 2;
        owner.onGradients(2.0, std::move(a), true, 0.1, out);
        owner.onGradients(2.0, std::move(b), true, 0.1, out);
        owner.onMergeDeadline(2.1, 1, true, out); // edge 2 never came
        QCOMPARE(owner.version(shard), std::uint64_t(2));
        adam.lr = config.learningRate * 2.0 / 3.0;
        adamStep(expected, mean, state, adam);
        off = (owner.values(shard) - expected).abs().max().item<double>();
        // Measured 3.7e-9 off; dividing the first mean by every window in
        // the merge (6, the move's claim too) instead of the gradients' (3)
        // puts it 5e-6 off.
        QVERIFY2(off < 1e-7, qPrintable(QString::number(off)));
    }

    // How far behind the shard's version a window may be: an owner refuses
    // windows computed more than 16 versions behind ("too_stale"), a local
    // update's move as a gradient.
    void anOwnerRefusesWindowsTooFarBehind() {
        auto config = m_config;
        config.regions[0].edges[2].localUpdates = true;
        auto [world, ownerPtr, shard, size] = ownerOf(config);
        SynapticOwner &owner = *ownerPtr;
        Outbox out;
        std::uint64_t round = 0, id = 100;
        double t = 1.0;
        // One window from `edge` computed `behind` versions back, merged alone.
        const auto send = [&](int edge, std::uint64_t behind) {
            const std::uint64_t now = owner.version(shard);
            auto m = gradientFrom(edge, shard, now - std::min(now, behind), size);
            m.shards[0].contributionIds = {++id};
            owner.onGradients(t, std::move(m), true, 0.1, out);
            owner.onMergeDeadline(t + 0.05, round++, true, out);
            t += 0.1;
            return owner.version(shard) > now; // applied
        };
        const auto tooStale = [&] {
            int n = 0;
            for (const auto &r : out.reports)
                if (const auto *l = std::get_if<LedgerReport>(&r);
                    l && l->kind == LedgerReport::Kind::Rejected && l->reason == "too_stale")
                    ++n;
            return n;
        };
        while (owner.version(shard) < 80)
            QVERIFY(send(0, 0));
        QCOMPARE(tooStale(), 0);
        QVERIFY(!send(1, 17));
        QCOMPARE(tooStale(), 1);
        QVERIFY(send(1, 16));
        QVERIFY(send(2, 16)); // a move: the same bound
        QVERIFY(!send(2, 17));
        QCOMPARE(tooStale(), 2);
    }

    // knobs.staleness_weighting: a gradient computed k > 1 versions behind
    // the shard counts 1/k of its windows, in the mean and in the rate's
    // share. Edge 1's two windows from 2 versions back must merge exactly
    // as one fresh window would (its owner twin gets that), and not as two.
    void staleGradientsCountByTheirStaleness() {
        const auto mergeAfterWarmUp = [&](bool weighting, std::uint32_t staleWindows, std::uint64_t behind) {
            auto config = m_config;
            config.knobs.stalenessWeighting = weighting;
            auto t = ownerOf(config);
            Outbox out;
            std::uint64_t id = 100;
            for (std::uint64_t round = 0; round < 4; ++round) { // edge 0 alone: versions 1-4
                auto m = gradientFrom(0, t.shard, round, t.size);
                m.shards[0].contributionIds = {++id};
                t.owner->onGradients(1.0 + double(round), std::move(m), true, 0.1, out);
                t.owner->onMergeDeadline(1.05 + double(round), round, true, out);
            }
            const std::uint64_t now = t.owner->version(t.shard);
            auto fresh = gradientFrom(0, t.shard, now, t.size, 2);
            auto stale = gradientFrom(1, t.shard, now - behind, t.size, staleWindows);
            fresh.shards[0].contributionIds = {++id};
            // The stale one first: edge 0 alone would be the whole region
            // the owner has heard, and merge at once.
            t.owner->onGradients(6.0, std::move(stale), true, 0.1, out);
            t.owner->onGradients(6.0, std::move(fresh), true, 0.1, out);
            if (t.owner->version(t.shard) != now + 1)
                return std::pair{now, at::Tensor()};
            return std::pair{now, t.owner->values(t.shard).clone()};
        };
        const auto [before, weighted] = mergeAfterWarmUp(true, 2, 2);
        QCOMPARE(before, std::uint64_t(4));
        QVERIFY(weighted.defined()); // one merge took both
        const auto [b1, asOneFresh] = mergeAfterWarmUp(false, 1, 0);
        QVERIFY2(at::equal(weighted, asOneFresh),
                 qPrintable(QString::number((weighted - asOneFresh).abs().max().item<double>())));
        // The check can tell: without the knob the stale pair weighs two.
        const auto [b2, unweighted] = mergeAfterWarmUp(false, 2, 2);
        QVERIFY(!at::allclose(unweighted, asOneFresh, 0, 1e-6));
        // One version behind (a center answer since the values it used) counts whole.
        const auto [b3, oneBehind] = mergeAfterWarmUp(true, 1, 1);
        QVERIFY(at::equal(oneBehind, asOneFresh));
    }

    void aHeldMeanWeighsByItsWindows() {
        // Edge 0's mean spans three windows, edge 1's one: the merged
        // gradient is (3 a + b) / 4, so on Adam's first step (which moves
        // each element by lr times the sign of the gradient) the sign
        // follows a where a and b disagree and |a| > |b| / 3.
        auto [world, ownerPtr, shard, size] = ownerOf(m_config);
        SynapticOwner &owner = *ownerPtr;
        const at::Tensor before = owner.values(shard).clone();
        auto a = gradientFrom(0, shard, 0, size, 3);
        auto b = gradientFrom(1, shard, 0, size, 1);
        const at::Tensor ga = a.shards[0].data.clone();
        const at::Tensor gb = b.shards[0].data.clone();
        Outbox out;
        owner.onGradients(1.0, std::move(a), true, 0.1, out);
        owner.onGradients(1.0, std::move(b), true, 0.1, out);
        owner.onMergeDeadline(1.1, 0, true, out);
        QCOMPARE(owner.version(shard), std::uint64_t(1));
        const at::Tensor moved = owner.values(shard) - before;
        const at::Tensor weighted = (3 * ga + gb) / 4;
        const at::Tensor plain = (ga + gb) / 2;
        const at::Tensor differ = weighted.sign() != plain.sign();
        QVERIFY(differ.sum().item<std::int64_t>() > 10); // the check can tell the two means apart
        // Adam steps against the gradient.
        QVERIFY(at::equal(moved.sign().masked_select(differ), (-weighted.sign()).masked_select(differ)));
    }

    // How far one merge moves the center's first shard when only eu sends a
    // delta, us's edges having heartbeat at `usHeardAt` (never when < 0).
    // Leases last 10 s; the delta arrives at 20 s and merges at its deadline.
    double loneRegionStep(double usHeardAt, bool euHeard = true) {
        auto config = m_config;
        config.knobs.leaseSeconds = 10;
        auto world = makeWorld(config, m_train, m_trainSet.labels, "cpu");
        SynapticCenter center(world->context(0));
        const at::Tensor before = center.globalValues().clone();
        const auto size = world->plan().shards[0].parameters;
        Outbox out;
        auto heartbeat = [&](int edge, double at) {
            Message hb;
            hb.kind = MessageKind::Heartbeat;
            hb.from = SimWorld::nodeOfEdge(edge);
            center.onMessage(at, std::move(hb), out);
        };
        for (int edge = 0; edge < 3 && euHeard; ++edge) // eu, still serving: heard at 15 s
            heartbeat(edge, 15.0);
        if (usHeardAt >= 0)
            for (int edge = 3; edge < 6; ++edge)
                heartbeat(edge, usHeardAt);
        Message delta;
        delta.kind = MessageKind::CenterDelta;
        delta.from = SimWorld::nodeOfEdge(0);
        ShardItem item;
        item.shard = 0;
        item.version = 0;
        item.checksum = tensorChecksum(before.slice(0, 0, size));
        item.data = at::full({size}, 0.01f);
        delta.shards.push_back(std::move(item));
        out = Outbox{};
        center.onMessage(20.0, std::move(delta), out);
        if (out.timers.size() != 1) // the merge deadline: us never reports
            return -1;
        const auto deadline = out.timers.front();
        center.onTimer(deadline.at, deadline.kind, deadline.arg, out);
        if (center.version(0) != 1)
            return -1;
        return (center.globalValues() - before).slice(0, 0, size).mean().item<double>();
    }

    void aLoneRegionMovesTheGlobalModelByItsShare() {
        // us finished training long ago but its edges still serve and hold
        // leases: eu's lone delta moves the global model by half of it (the
        // mean over both regions, us's delta being zero), not by all of it.
        const double heard = loneRegionStep(15.0);
        QVERIFY2(std::abs(heard - 0.005) < 1e-6, qPrintable(QString::number(heard)));
        // us cut off: its leases lapsed at 10 s, so eu is all there is.
        const double cut = loneRegionStep(0.0);
        QVERIFY2(std::abs(cut - 0.01) < 1e-6, qPrintable(QString::number(cut)));
        // Never heard from at all: the same.
        const double never = loneRegionStep(-1);
        QVERIFY2(std::abs(never - 0.01) < 1e-6, qPrintable(QString::number(never)));
        // eu's delta arrives before any eu heartbeat (a center that just
        // restarted): eu still counts, with us: half.
        const double unleased = loneRegionStep(15.0, false);
        QVERIFY2(std::abs(unleased - 0.005) < 1e-6, qPrintable(QString::number(unleased)));
    }

    void anEdgeThatLeftStopsHeartbeating() {
        // A region counts in the center's mean while an edge of it holds a
        // lease: an edge that gave its lease back must not take a new one
        // with its next heartbeat (a finished edge keeps heartbeating).
        auto world = makeWorld(m_config, m_train, m_trainSet.labels, "cpu");
        SynapticEdge edge(world->context(SimWorld::nodeOfEdge(0)));
        Outbox out;
        edge.start(0.0, out);
        QCOMPARE(out.timers.size(), std::size_t(1)); // the heartbeat timer
        const auto heartbeat = out.timers.front();
        auto heartbeatsIn = [](const Outbox &o) {
            return std::count_if(o.messages.begin(), o.messages.end(),
                                 [](const Message &m) { return m.kind == MessageKind::Heartbeat && !m.last; });
        };
        out = Outbox{};
        edge.onTimer(heartbeat.at, heartbeat.kind, heartbeat.arg, out);
        QCOMPARE(heartbeatsIn(out), 1L); // before leaving: heartbeats go on

        out = Outbox{};
        edge.onLeave(1.0, std::vector<bool>(6, true), out);
        QVERIFY(std::any_of(out.messages.begin(), out.messages.end(),
                            [](const Message &m) { return m.kind == MessageKind::Heartbeat && m.last; }));
        out = Outbox{};
        edge.onTimer(1.1, heartbeat.kind, heartbeat.arg, out);
        QCOMPARE(heartbeatsIn(out), 0L);
        QVERIFY(out.timers.empty());
    }

    void centerEvaluatesWithTheStatisticsOfRegionsItStillHears() {
        auto world = makeWorld(m_config, m_train, m_trainSet.labels, "cpu");
        SynapticCenter center(world->context(0));
        const auto initial = world->context(0).model->initialBuffers;
        auto deltaWithBuffers = [&](int edge, float value) {
            Message m;
            m.kind = MessageKind::CenterDelta;
            m.from = SimWorld::nodeOfEdge(edge);
            m.to = 0;
            m.buffers = at::full_like(initial, value);
            return m;
        };
        Outbox out;
        center.onMessage(1.0, deltaWithBuffers(0, 1.0f), out); // eu
        center.onMessage(2.0, deltaWithBuffers(3, 3.0f), out); // us
        at::Tensor values, buffers;
        QVERIFY(center.evaluationModel(values, buffers));
        QCOMPARE(buffers.mean().item<double>(), 2.0); // both regions train: their mean

        // A second owner of eu reports: eu is the mean of its owners (3),
        // and weighs as one region against us.
        center.onMessage(3.0, deltaWithBuffers(1, 5.0f), out);
        QVERIFY(center.evaluationModel(values, buffers));
        QCOMPARE(buffers.mean().item<double>(), 3.0);

        // eu finished long ago and is gone; us goes on: us's owners alone
        // ((3 + 7) / 2).
        center.onMessage(20.0, deltaWithBuffers(4, 7.0f), out);
        QVERIFY(center.evaluationModel(values, buffers));
        QCOMPARE(buffers.mean().item<double>(), 5.0);

        // An eu edge still serves and heartbeats: eu holds its place in the
        // global model (aLoneRegionMovesTheGlobalModelByItsShare), and its
        // statistics hold theirs: (3 + 5) / 2.
        Message hb;
        hb.kind = MessageKind::Heartbeat;
        hb.from = SimWorld::nodeOfEdge(2);
        center.onMessage(20.5, std::move(hb), out);
        QVERIFY(center.evaluationModel(values, buffers));
        QCOMPARE(buffers.mean().item<double>(), 4.0);
    }
};

QTEST_GUILESS_MAIN(TestMergeWeighting)
#include "tst_merge_weighting.moc"
