// Hub merges (knobs.hub_merges): each shard's regions merge at its hub, an
// owner in one region, and the center only pulls the merged copies and
// checks them. The hub answers a pull with what changed since the copy the
// center names (a coded delta under a lossy center codec); the center takes
// a copy only when it has the checksum the hub gave, and only from that
// shard's hub. A hub counts a region in its mean while that region's deltas
// keep coming (it sees no leases). A whole run finishes only once the center
// holds every hub's last merge. A hub's state is durable: a killed hub
// restarts from its own state file, as the center does.
#include "core/data/fashion_mnist.h"
#include "core/engine/audit/invariants.h"
#include "core/engine/durable/state_codec.h"
#include "core/engine/durable/state_store.h"
#include "core/engine/codec/codec_spec.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/sim/strategies/shard_hubs.h"
#include "core/engine/sim/strategies/synaptic_center.h"
#include "core/engine/sim/strategies/synaptic_edge.h"
#include "core/engine/synapse/flat_model.h"
#include "core/engine/tensor_data.h"
#include "test_threads.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <map>
#include <variant>

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace synaptic;
using namespace synaptic::engine;

class TestHubMerges : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    TensorSet m_test;
    ClusterConfig m_config;
    // The whole-run test's look at the nodes as a run left them.
    std::function<void(const std::vector<std::unique_ptr<SimNode>> &)> m_inspect;
    std::vector<ShardSpec> m_plan;
    const NodeContext *m_context = nullptr;

    // The center and the hub of shard 0, driven by hand.
    struct Pair {
        std::unique_ptr<SimWorld> world;
        NodeContext hubContext;
        std::unique_ptr<SynapticCenter> center;
        std::unique_ptr<SynapticCenter> hub;
        int hubNode = 0;
        std::int64_t size = 0; // shard 0's parameters
    };
    Pair pair(const ClusterConfig &config) {
        Pair p;
        p.world = makeWorld(config, m_train, m_trainSet.labels, "cpu");
        p.hubNode = hubNodeOfShard(p.world->context(0), 0);
        p.hubContext = p.world->context(p.hubNode);
        p.hubContext.stateStore = nullptr;
        p.center = std::make_unique<SynapticCenter>(p.world->context(0));
        p.hub = std::make_unique<SynapticCenter>(p.hubContext, SynapticCenter::Role::Hub);
        p.size = p.world->plan().shards[0].parameters;
        return p;
    }

    // Region `region`'s owner of shard 0's delta of `value` everywhere,
    // based on the hub's current copy. Under a lossy center codec a region
    // holds the coded copy the hub's answer gave it: `base` names that answer.
    static Message deltaMessage(const Pair &p, int region, float value, std::uint64_t sequence,
                                const ShardItem *base = nullptr) {
        Message m;
        m.kind = MessageKind::CenterDelta;
        m.from = SimWorld::nodeOfEdge(p.world->plan().owner[std::size_t(region)][0]);
        m.to = p.hubNode;
        ShardItem item;
        item.shard = 0;
        item.version = base ? base->version : p.hub->version(0);
        item.checksum = base ? base->checksum : tensorChecksum(p.hub->globalValues().slice(0, 0, p.size));
        item.sequence = sequence;
        item.data = at::full({p.size}, value);
        m.shards.push_back(std::move(item));
        return m;
    }

    // That delta, sent to the hub.
    static void delta(Pair &p, int region, float value, std::uint64_t sequence, double at, Outbox &out,
                      const ShardItem *base = nullptr) {
        p.hub->onMessage(at, deltaMessage(p, region, value, sequence, base), out);
    }

    // The center's pull timer fires: its request to shard 0's hub.
    static Message pullOfShard0(Pair &p, double at) {
        Outbox out;
        p.center->start(at - 0.5, out); // the pull timer fires half a second on
        const auto timer = out.timers.front();
        out = Outbox{};
        p.center->onTimer(timer.at, timer.kind, timer.arg, out);
        for (auto &m : out.messages)
            if (m.to == p.hubNode) {
                m.from = kCenterNode;
                return m;
            }
        return {};
    }

    // The hub's answer to `pull` (kind Heartbeat when it sent none; it
    // always answers a pull of its shards, with nothing when none changed).
    static Message answer(Pair &p, const Message &pull, double at) {
        Outbox out;
        p.hub->onMessage(at, Message(pull), out);
        if (out.messages.empty())
            return {};
        Message a = out.messages.front();
        a.from = p.hubNode;
        // What the coding of each tensor says, as it reads it off the wire
        // (decodePayloads: a transport's work before the node sees it).
        codingOfFirstItem = a.shards.empty() ? Codec::Fp32 : a.shards.front().coding.codec;
        decodePayloads(a);
        return a;
    }

    static inline Codec codingOfFirstItem = Codec::Fp32;

    // Every edge joins the center at `at` (a lease of 10 s each): a pull
    // round then waits for every hub's answer before it settles the center.
    static void joinAll(Pair &p, double at) {
        Outbox granted;
        for (int node = 1; node <= p.world->edgeCount(); ++node) {
            Message hb;
            hb.kind = MessageKind::Heartbeat;
            hb.from = node;
            hb.to = kCenterNode;
            hb.join = true;
            p.center->onMessage(at, std::move(hb), granted);
        }
    }

    // A hub's answer to `pull` when none of its shards changed since the
    // copy the center names: nothing, exactly (as a real hub answers).
    static Message nothingNew(const Message &pull) {
        Message nothing;
        nothing.kind = MessageKind::HubCopy;
        nothing.from = pull.to;
        nothing.round = pull.round; // the round it answers
        nothing.last = true;        // exact: nothing withheld
        return nothing;
    }

    // One whole pull round at `at`: shard 0's hub answers its pull, every
    // other hub that nothing changed (exactly), and the center takes them
    // all. Returns shard 0's hub's answer.
    static Message pullRound(Pair &p, double at) {
        Outbox timer;
        p.center->start(at - 0.5, timer); // the pull timer fires half a second on
        Outbox round, taken;
        p.center->onTimer(at, timer.timers.front().kind, 0, round);
        Message mine;
        for (auto &pull : round.messages) {
            if (pull.to == p.hubNode) {
                pull.from = kCenterNode;
                mine = answer(p, pull, at);
                continue;
            }
            p.center->onMessage(at, nothingNew(pull), taken);
        }
        p.center->onMessage(at, Message(mine), taken);
        return mine;
    }

    static at::Tensor shard0(const SynapticCenter &node, std::int64_t size) {
        return node.globalValues().slice(0, 0, size);
    }

    static int consistencyMismatches(const Outbox &out, int &checked) {
        int mismatches = 0;
        for (const auto &r : out.reports)
            if (const auto *e = std::get_if<SimEvent>(&r))
                if (const auto *c = std::get_if<ConsistencyEvent>(e)) {
                    checked += c->checked;
                    mismatches += c->mismatches;
                }
        return mismatches;
    }

private Q_SLOTS:
    void initTestCase() {
        setTestThreads();
        m_trainSet = data::loadFashionMnist(data::resolveDataDir(""), data::Split::Train, 2000);
        m_train = toTensors(m_trainSet, "cpu");
        m_test = toTensors(data::loadFashionMnist(data::resolveDataDir(""), data::Split::Test, 500), "cpu");
        m_config = loadClusterConfig(QFINDTESTDATA("data/tiny_cluster.json").toStdString());
        m_config.knobs.hubMerges = true;
        m_config.knobs.leaseSeconds = 10;
        m_config.knobs.heartbeatSeconds = 2;
    }

    void hubsSpreadOverRegionsAndEdges() {
        auto world = makeWorld(m_config, m_train, m_trainSet.labels, "cpu");
        const auto &ctx = world->context(0);
        const int shards = int(world->plan().shards.size());
        int hubs = 0;
        for (int node = 1; node <= world->edgeCount(); ++node)
            for (int s : shardsOfHub(ctx, node)) {
                ++hubs;
                // The plan's owner of the shard in region (shard mod regions).
                const int region = s % world->regionCount();
                QCOMPARE(node, SimWorld::nodeOfEdge(world->plan().owner[std::size_t(region)][std::size_t(s)]));
                QCOMPARE(mergeNodeOfShard(ctx, s), node);
            }
        QCOMPARE(hubs, shards); // every shard has one hub
        QVERIFY(shardsOfHub(ctx, kCenterNode).empty());
        auto off = m_config;
        off.knobs.hubMerges = false;
        auto plain = makeWorld(off, m_train, m_trainSet.labels, "cpu");
        QCOMPARE(mergeNodeOfShard(plain->context(0), 0), kCenterNode);
        QVERIFY(shardsOfHub(plain->context(0), hubNodeOfShard(plain->context(0), 0)).empty());
    }

    void theCenterTakesOnlyTheHubsCheckedCopy() {
        auto p = pair(m_config);
        const at::Tensor initial = shard0(*p.hub, p.size).clone();
        Outbox out;
        delta(p, 0, 0.01f, 1, 1.0, out);
        delta(p, 1, 0.03f, 1, 1.1, out); // both regions: merged at once
        QCOMPARE(p.hub->version(0), std::uint64_t(1));
        const double moved = (shard0(*p.hub, p.size) - initial).mean().item<double>();
        QVERIFY2(std::abs(moved - 0.02) < 1e-6, qPrintable(QString::number(moved))); // the mean ("average")
        QCOMPARE(std::count_if(out.messages.begin(), out.messages.end(),
                               [](const Message &m) { return m.kind == MessageKind::CenterValues; }),
                 2L); // each region's owner gets its answer from the hub

        const Message pull = pullOfShard0(p, 2.0);
        QCOMPARE(pull.kind, MessageKind::HubPull);
        QCOMPARE(pull.shards.front().version, std::uint64_t(0));
        const Message good = answer(p, pull, 2.1);
        QCOMPARE(good.kind, MessageKind::HubCopy);
        QCOMPARE(good.shards.size(), std::size_t(1)); // only what changed
        QCOMPARE(good.shards.front().version, std::uint64_t(1));

        // A copy damaged on the way is not taken, and is counted.
        Message bad = good;
        bad.shards.front().data = good.shards.front().data.clone();
        bad.shards.front().data[0] += 1.0f;
        Outbox centerOut;
        p.center->onMessage(2.2, std::move(bad), centerOut);
        QCOMPARE(p.center->version(0), std::uint64_t(0));
        QCOMPARE(p.center->consistencyMismatches(), std::uint64_t(1));
        // Nor is a copy from a node that is not the shard's hub.
        Message stranger = good;
        stranger.from = p.hubNode == 1 ? 2 : 1;
        p.center->onMessage(2.3, std::move(stranger), centerOut);
        QCOMPARE(p.center->version(0), std::uint64_t(0));
        // The hub's own copy is.
        p.center->onMessage(2.4, Message(good), centerOut);
        QCOMPARE(p.center->version(0), std::uint64_t(1));
        QVERIFY(at::equal(shard0(*p.center, p.size), shard0(*p.hub, p.size)));

        // The next pull names the new copy: the hub answers, with nothing.
        const Message again = pullOfShard0(p, 3.0);
        QCOMPARE(again.shards.front().version, std::uint64_t(1));
        const Message none = answer(p, again, 3.1);
        QCOMPARE(none.kind, MessageKind::HubCopy);
        QVERIFY(none.shards.empty());
    }

    // An answer to an older pull that arrives after a newer copy was taken
    // is not taken: the center's version never goes back.
    void anOvertakenAnswerIsNotTaken() {
        auto p = pair(m_config);
        Outbox out;
        delta(p, 0, 0.01f, 1, 1.0, out);
        delta(p, 1, 0.03f, 1, 1.1, out);
        const Message first = answer(p, pullOfShard0(p, 1.5), 1.5); // version 1, not delivered yet
        delta(p, 0, 0.01f, 2, 2.0, out);
        delta(p, 1, 0.03f, 2, 2.1, out);
        const Message second = answer(p, pullOfShard0(p, 2.5), 2.5); // version 2 (the center still at 0)
        QCOMPARE(second.shards.front().version, std::uint64_t(2));
        p.center->onMessage(2.6, Message(second), out);
        QCOMPARE(p.center->version(0), std::uint64_t(2));
        p.center->onMessage(2.7, Message(first), out);
        QCOMPARE(p.center->version(0), std::uint64_t(2));
        QVERIFY(at::equal(shard0(*p.center, p.size), shard0(*p.hub, p.size)));
        QCOMPARE(p.center->consistencyMismatches(), std::uint64_t(0));
    }

    // A pull round's checks are one consistency event (one center sync,
    // which serving's release counts), reported once every hub asked has
    // answered; a hub's merges report none.
    void aCheckedRoundIsOneCenterSync() {
        auto p = pair(m_config);
        joinAll(p, 0.5);
        Outbox out;
        delta(p, 0, 0.01f, 1, 1.0, out);
        delta(p, 1, 0.03f, 1, 1.1, out);
        int checked = 0;
        QVERIFY(out.reports.size() > 0); // the merge's versions and drift
        QCOMPARE(consistencyMismatches(out, checked), 0);
        QCOMPARE(checked, 0); // a hub's merge is no center sync
        Outbox timer;
        p.center->start(1.5, timer);
        Outbox round;
        p.center->onTimer(timer.timers.front().at, timer.timers.front().kind, 0, round);
        QVERIFY(round.messages.size() > 1); // one pull per hub
        Message good;
        for (auto &pull : round.messages)
            if (pull.to == p.hubNode) {
                pull.from = kCenterNode;
                good = answer(p, pull, 2.1);
            }
        Message bad = good;
        bad.shards.front().data = good.shards.front().data.clone();
        bad.shards.front().data[0] += 1.0f;
        Outbox taken;
        p.center->onMessage(2.2, std::move(bad), taken);
        p.center->onMessage(2.3, Message(good), taken);
        QCOMPARE(consistencyMismatches(taken, checked), 0);
        QCOMPARE(checked, 0); // other hubs have not answered yet
        auto answerOthers = [&](const Outbox &pulls, double at, Outbox &into) {
            for (const auto &pull : pulls.messages) {
                if (pull.to == p.hubNode)
                    continue;
                p.center->onMessage(at, nothingNew(pull), into); // their shards did not change
            }
        };
        answerOthers(round, 2.4, taken);
        QCOMPARE(consistencyMismatches(taken, checked), 1);
        QCOMPARE(checked, 2);
        // A copy of that round failed its check: it did not settle the center.
        QVERIFY(p.center->settledAt() < 0);

        // The next round: every hub has nothing new, so the center holds
        // every hub's copy as of the round's send time (a live center ends
        // the run only on such a round sent after every edge finished).
        Outbox next;
        p.center->onTimer(3.0, timer.timers.front().kind, 0, next);
        for (auto &pull : next.messages)
            if (pull.to == p.hubNode) {
                pull.from = kCenterNode;
                Message stale = answer(p, pull, 3.1);
                QVERIFY(stale.shards.empty());
                stale.round = pull.round - 1; // an answer to the round before answers nothing here
                p.center->onMessage(3.15, Message(stale), taken);
                answerOthers(next, 3.2, taken);
                QVERIFY(p.center->settledAt() < 0); // shard 0's hub has not answered this round
                p.center->onMessage(3.3, answer(p, pull, 3.3), taken);
                // A hub holding less than the center names (restarted over
                // no state) answers "not exact": it cannot settle the center.
                SynapticCenter lostItsState(p.hubContext, SynapticCenter::Role::Hub);
                Outbox lost;
                lostItsState.onMessage(3.4, Message(pull), lost);
                QVERIFY(!lost.messages.empty() && !lost.messages.front().last);
            }
        QCOMPARE(p.center->settledAt(), 3.0);

        // Once every edge's lease has lapsed (10 s after the joins) no hub
        // is waited for: a round settles as it leaves.
        Outbox late;
        p.center->onTimer(11.0, timer.timers.front().kind, 0, late);
        QCOMPARE(p.center->settledAt(), 11.0);
    }

    void lossyPullsAreDeltasFromTheCentersCopy() {
        auto config = m_config;
        config.codecs.center = parseCodec("int8");
        auto p = pair(config);
        Outbox out;
        std::map<int, ShardItem> held; // per region: the hub's last answer to it
        for (std::uint64_t round = 1; round <= 2; ++round) {
            for (int region = 0; region < 2; ++region) {
                const auto it = held.find(region);
                delta(p, region, 0.01f * float(round + 2 * region), round, double(round) + 0.1 * region, out,
                      it == held.end() ? nullptr : &it->second);
            }
            QCOMPARE(p.hub->version(0), round);
            QCOMPARE(p.hub->consistencyMismatches(), std::uint64_t(0)); // both based on what it sent them
            for (const auto &m : out.messages)
                for (int region = 0; region < 2; ++region)
                    if (m.kind == MessageKind::CenterValues &&
                        m.to == SimWorld::nodeOfEdge(p.world->plan().owner[std::size_t(region)][0]))
                        held[region] = m.shards.front();
            out = Outbox{};
            const Message a = answer(p, pullOfShard0(p, double(round) + 0.5), double(round) + 0.6);
            QCOMPARE(a.kind, MessageKind::HubCopy);
            const auto &item = a.shards.front();
            // Coded from the copy the center holds: the initial values at
            // first (every node starts there), then the hub's last answer.
            QVERIFY(item.delta);
            QCOMPARE(item.deltaFrom, round - 1);
            QCOMPARE(codingOfFirstItem, Codec::Int8);
            p.center->onMessage(double(round) + 0.7, Message(a), out);
            QCOMPARE(p.center->version(0), round);
            QCOMPARE(p.center->consistencyMismatches(), std::uint64_t(0));
            // int8 with per-chunk scales: within a small share of the range.
            const double off = (shard0(*p.center, p.size) - shard0(*p.hub, p.size)).abs().max().item<double>();
            const double range = shard0(*p.hub, p.size).abs().max().item<double>();
            QVERIFY2(off < 0.01 * range, qPrintable(QString("%1 of %2").arg(off).arg(range)));
        }
        // The shard settles (no merge for a pull period, the last at 2.1
        // s): the center then gets the exact copy, whole, and holds the hub's.
        QVERIFY(answer(p, pullOfShard0(p, 2.55), 2.55).shards.empty()); // too soon
        QVERIFY(p.center->checksum(0) != p.hub->checksum(0));
        const Message exact = answer(p, pullOfShard0(p, 2.7), 2.7);
        QCOMPARE(exact.shards.size(), std::size_t(1));
        QVERIFY(!exact.shards.front().delta);
        p.center->onMessage(2.8, Message(exact), out);
        QCOMPARE(p.center->checksum(0), p.hub->checksum(0));
        QVERIFY(at::equal(shard0(*p.center, p.size), shard0(*p.hub, p.size)));
    }

    // A live center ends a run on a pull round after which it holds every
    // hub's exact copy (SynapticCenter::settledAt): not on one that brought
    // a coded delta, nor on one whose hub withheld the exact copy because
    // it merged less than the settle time before (knobs.hubSettleSeconds).
    void aLossyCopyDoesNotSettleTheCenter() {
        auto config = m_config;
        config.codecs.center = parseCodec("int8");
        auto p = pair(config);
        joinAll(p, 0.5);
        Outbox out;
        delta(p, 0, 0.01f, 1, 1.0, out);
        delta(p, 1, 0.03f, 1, 1.1, out); // version 1, merged at 1.1 s
        const Message coded = pullRound(p, 1.3);
        QVERIFY(coded.shards.size() == 1 && coded.shards.front().delta && !coded.last);
        QCOMPARE(p.center->version(0), std::uint64_t(1));
        QVERIFY(p.center->settledAt() < 0); // within the codec's error of the hub's copy
        const Message withheld = pullRound(p, 1.5);
        QVERIFY(withheld.shards.empty() && !withheld.last);
        QVERIFY(p.center->settledAt() < 0);
        const Message exact = pullRound(p, 1.7);
        QVERIFY(exact.shards.size() == 1 && !exact.shards.front().delta && exact.last);
        QCOMPARE(p.center->checksum(0), p.hub->checksum(0));
        QCOMPARE(p.center->settledAt(), 1.7);
    }

    // A round's check is reported once every hub answered *that* round: a
    // late answer to the round before (its copy checked and taken) does
    // not stand in for its hub's answer to the current one.
    void aLateAnswerDoesNotCloseTheCurrentRound() {
        auto p = pair(m_config);
        joinAll(p, 0.5);
        Outbox out;
        delta(p, 0, 0.01f, 1, 1.0, out);
        delta(p, 1, 0.03f, 1, 1.1, out); // shard 0 at version 1 on its hub
        Outbox timer;
        p.center->start(1.0, timer);
        const auto kind = timer.timers.front().kind;
        // Shard 0's hub answers for real; the others, whose shards did not
        // change, answer nothing new (exactly), as in pullRound.
        auto answersOf = [&](const Outbox &pulls, double at, bool hubOfShard0) {
            std::vector<Message> answers;
            for (auto pull : pulls.messages) {
                if ((pull.to == p.hubNode) != hubOfShard0)
                    continue;
                if (hubOfShard0) {
                    pull.from = kCenterNode;
                    answers.push_back(answer(p, pull, at));
                    continue;
                }
                answers.push_back(nothingNew(pull));
            }
            return answers;
        };
        Outbox first, second, taken;
        p.center->onTimer(1.5, kind, 0, first);
        const auto late = answersOf(first, 1.6, true); // shard 0's copy, held up on its way
        QCOMPARE(late.size(), std::size_t(1));
        QCOMPARE(late.front().shards.size(), std::size_t(1));
        for (auto &a : answersOf(first, 1.6, false))
            p.center->onMessage(1.7, std::move(a), taken);
        p.center->onTimer(2.0, kind, 0, second);
        for (auto &a : answersOf(second, 2.1, false))
            p.center->onMessage(2.2, std::move(a), taken);
        int checked = 0;
        QCOMPARE(consistencyMismatches(taken, checked), 0);
        QCOMPARE(checked, 0);
        p.center->onMessage(2.3, Message(late.front()), taken); // the first round's answer, late
        QCOMPARE(p.center->version(0), std::uint64_t(1));         // its copy is taken
        QCOMPARE(consistencyMismatches(taken, checked), 0);
        QCOMPARE(checked, 0); // the second round still waits for shard 0's hub
        const auto current = answersOf(second, 2.4, true);
        QCOMPARE(current.size(), std::size_t(1));
        p.center->onMessage(2.5, Message(current.front()), taken);
        QCOMPARE(consistencyMismatches(taken, checked), 0);
        QCOMPARE(checked, 1); // now the round is one center sync, with the late copy's check
    }

    // knobs.hubSettleSeconds, not the pull period, is how long a shard must
    // go without a merge before its hub sends the exact copy: pulls in
    // between carry nothing (the center's coded copy stands), so a quiet
    // spell mid-run costs no whole copy.
    void aShardSettlesOnlyAfterItsSettleTime() {
        auto config = m_config;
        config.codecs.center = parseCodec("int8");
        config.knobs.hubSettleSeconds = 1.0; // two pull periods
        auto p = pair(config);
        joinAll(p, 0.5);
        Outbox out;
        delta(p, 0, 0.01f, 1, 1.0, out);
        delta(p, 1, 0.03f, 1, 1.1, out); // version 1, merged at 1.1 s
        const Message coded = pullRound(p, 1.3);
        QVERIFY(coded.shards.size() == 1 && coded.shards.front().delta && !coded.last);
        // A pull period after the merge, short of the settle time: withheld.
        const Message early = pullRound(p, 1.7);
        QVERIFY(early.shards.empty() && !early.last);
        QVERIFY(p.center->settledAt() < 0);
        QVERIFY(p.center->checksum(0) != p.hub->checksum(0));
        const Message exact = pullRound(p, 2.2);
        QVERIFY(exact.shards.size() == 1 && !exact.shards.front().delta && exact.last);
        QCOMPARE(p.center->checksum(0), p.hub->checksum(0));
        QCOMPARE(p.center->settledAt(), 2.2);
    }

    // The edge that is shard 0's hub takes a region's delta into its hub,
    // arms the hub's merge deadline as a timer of its own, and merges when
    // it fires; the center's pull reaches the hub too, not the owner role.
    void anEdgeHostsItsHub() {
        auto p = pair(m_config);
        SynapticEdge edge(p.world->context(p.hubNode));
        QVERIFY(edge.hub());
        QVERIFY(edge.hub()->role() == SynapticCenter::Role::Hub);
        Outbox out;
        edge.start(0.0, out);
        const int otherRegion = 1 - p.world->regionOfEdge(ClusterShape::edgeOfNode(p.hubNode));
        out = Outbox{};
        edge.onMessage(1.0, deltaMessage(p, otherRegion, 0.02f, 1), out); // based on the initial values
        QCOMPARE(out.timers.size(), std::size_t(1)); // the hub's deadline: the other region has not reported
        const auto deadline = out.timers.front();
        QVERIFY(deadline.kind > 100); // not one of the edge's or its owner's kinds
        out = Outbox{};
        edge.onTimer(deadline.at, deadline.kind, deadline.arg, out);
        QCOMPARE(edge.hub()->version(0), std::uint64_t(1));
        QVERIFY(std::any_of(out.messages.begin(), out.messages.end(), [&](const Message &a) {
            return a.kind == MessageKind::CenterValues && a.to == SimWorld::nodeOfEdge(p.world->plan().owner[std::size_t(otherRegion)][0]);
        }));
        Message pull = pullOfShard0(p, 2.0);
        out = Outbox{};
        edge.onMessage(2.0, std::move(pull), out);
        QCOMPARE(out.messages.size(), std::size_t(1));
        QCOMPARE(out.messages.front().kind, MessageKind::HubCopy); // the hub's answer, not catch-up values
        QCOMPARE(out.messages.front().to, kCenterNode);
        QCOMPARE(out.messages.front().shards.front().version, std::uint64_t(1));
    }

    // How far the hub moves shard 0 when only eu sends a delta of 0.01 at
    // `loneAt`, both regions having merged at 1 s. Leases last 10 s.
    // `centerHears`: the center's pull just before says it hears both.
    double loneRegionStep(double loneAt, bool centerHears = false) {
        auto p = pair(m_config);
        Outbox out;
        delta(p, 0, 0.0f, 1, 1.0, out);
        delta(p, 1, 0.0f, 1, 1.1, out);
        if (centerHears) {
            Message pull = pullOfShard0(p, loneAt - 1);
            if (!pull.owners.empty()) // this center heard no heartbeat
                return -1;
            pull.owners = {0, 1};
            answer(p, pull, loneAt - 1);
        }
        const at::Tensor before = shard0(*p.hub, p.size).clone();
        out = Outbox{};
        delta(p, 0, 0.01f, 2, loneAt, out);
        if (out.timers.size() != 1) // the merge deadline: us never reports
            return -1;
        const auto deadline = out.timers.front();
        p.hub->onTimer(deadline.at, deadline.kind, deadline.arg, out);
        if (p.hub->version(0) != 2)
            return -1;
        return (shard0(*p.hub, p.size) - before).mean().item<double>();
    }

    // A hub's state file holds only the shards it merges: another hub's
    // file is refused whole, naming the file, before any of it is taken.
    void aHubRefusesAnotherHubsState() {
        auto world = makeWorld(m_config, m_train, m_trainSet.labels, "cpu");
        const int hubA = hubNodeOfShard(world->context(0), 0);
        int hubB = -1;
        for (int shard = 1; shard < int(world->plan().shards.size()) && hubB < 0; ++shard)
            if (hubNodeOfShard(world->context(0), shard) != hubA)
                hubB = hubNodeOfShard(world->context(0), shard);
        QVERIFY(hubB > 0);
        MemoryStateStore store;
        NodeContext a = world->context(hubA), b = world->context(hubB);
        a.stateStore = b.stateStore = &store;
        SynapticCenter first(a, SynapticCenter::Role::Hub);
        Outbox out;
        first.start(0.0, out);
        QVERIFY(out.durableState); // its first state (the edge hosting it writes it as the hub part)
        store.write(hubB, *out.durableState, StatePart::Hub);
        SynapticCenter second(b, SynapticCenter::Role::Hub);
        QVERIFY(second.crashed()); // a process started over a state file reloads it
        try {
            Outbox restored;
            second.restoreAfterCrash(1.0, false, restored);
            QFAIL("another hub's state was taken");
        } catch (const StateFileError &e) {
            const QString what = e.what();
            QVERIFY2(what.contains(QString("node %1 hub").arg(hubB)) && what.contains("is not one this hub merges"),
                     qPrintable(what));
        }
    }

    // Durable hub state: the edge that is shard 0's hub is killed mid-run
    // and revived from its files (state.bin for its owner role,
    // hub-state.bin for its hub). Its merges go on past the versions it
    // named before the kill, no delta is merged twice, and the run ends
    // with the center holding every hub's copy. From the file before the
    // newest (an old backup) it skips one version, as the center does;
    // resuming at that file's versions (guard broken) names a version a
    // second time with other values, and the audit says so.
    void aKilledHubRestartsFromItsState_data() {
        QTest::addColumn<bool>("oldState");
        QTest::addColumn<bool>("breakJump");
        QTest::newRow("newest state") << false << false;
        QTest::newRow("old state file") << true << false;
        QTest::newRow("old state file, no version skip: caught") << true << true;
    }

    void aKilledHubRestartsFromItsState() {
        QFETCH(bool, oldState);
        QFETCH(bool, breakJump);
        auto world = makeWorld(m_config, m_train, m_trainSet.labels, "cpu"); // the same plan as the run's
        const int hubNode = hubNodeOfShard(world->context(0), 0);
        QTemporaryDir dir;
        SimOptions o;
        o.virtualSeconds = 4.0;
        o.stateDir = dir.path().toStdString();
        o.finalFullEvaluation = false;
        const double killAt = 1.03, reviveAt = 1.6;
        SimCommand kill{SimCommand::Kind::KillNode, killAt};
        kill.node = SimWorld::edgeOfNode(hubNode);
        SimCommand revive{SimCommand::Kind::ReviveNode, reviveAt};
        revive.node = kill.node;
        revive.value = oldState ? 1 : 0;
        o.commands = {kill, revive};
        if (breakJump)
            o.faults[hubNode].breakRestoreVersionJump = true;
        std::vector<AuditEvent> history;
        o.observer = [&history](const SimEvent &e) {
            if (const auto *a = std::get_if<AuditEvent>(&e))
                history.push_back(*a);
        };
        Simulation sim(m_config, m_train, m_trainSet.labels, m_test, o);
        const auto r = sim.run();
        const auto violations = checkInvariants(history);
        QString listed;
        for (const auto &v : violations)
            listed += QString::fromStdString(describeViolation(v)) + "\n";
        if (breakJump) {
            QVERIFY2(std::any_of(violations.begin(), violations.end(),
                                 [&](const Violation &v) {
                                     return v.node == hubNode && v.invariant == "no_split_brain" &&
                                            v.detail.find("at its hub") != std::string::npos;
                                 }),
                     qPrintable("the hub named a version twice unnoticed:\n" + listed));
            return;
        }
        QVERIFY2(violations.empty(), qPrintable(listed));
        QVERIFY(QFileInfo::exists(dir.filePath(QString("node-%1/hub-state.bin").arg(hubNode))));
        QVERIFY(QFileInfo::exists(dir.filePath(QString("node-%1/state.bin").arg(hubNode))));
        // It restored a state its merges wrote (not only the first one),
        // and merged on past every version it named before the kill.
        std::uint64_t before = 0, after = 0;
        double restoredFrom = -1;
        for (const auto &e : history) {
            if (e.node != hubNode)
                continue;
            if (e.kind == AuditEvent::Kind::Restore)
                restoredFrom = e.writtenAt;
            if (e.kind == AuditEvent::Kind::Version && !e.cache && e.region < 0)
                (e.time < killAt ? before : after) = std::max(e.time < killAt ? before : after, e.version);
        }
        QVERIFY2(before > 1, "the hub merged too little before the kill: the test proves nothing");
        QVERIFY2(after > before, qPrintable(QString("versions %1 before the kill, %2 after").arg(before).arg(after)));
        if (!oldState)
            QVERIFY2(restoredFrom > 0 && restoredFrom < killAt, qPrintable(QString::number(restoredFrom)));
        QVERIFY2(r.stoppedEarly.empty(), r.stoppedEarly.c_str());
    }

    void aHubCountsARegionWhileItsDeltasKeepComing() {
        // us sent its last delta 4 s before: it still counts (finished, or
        // between syncs), so eu's lone delta moves the shard by half.
        const double recent = loneRegionStep(5.0);
        QVERIFY2(std::abs(recent - 0.005) < 1e-6, qPrintable(QString::number(recent)));
        // Silent for longer than a lease: cut off, eu is all there is.
        const double gone = loneRegionStep(30.0);
        QVERIFY2(std::abs(gone - 0.01) < 1e-6, qPrintable(QString::number(gone)));
        // Unless the center's pull says it still hears us (its edges
        // heartbeat: finished, serving): us holds its place, as at the center.
        const double heard = loneRegionStep(30.0, true);
        QVERIFY2(std::abs(heard - 0.005) < 1e-6, qPrintable(QString::number(heard)));
    }

    // A whole run: the owners' deltas go to the hubs, the center's bytes
    // are pulls, and the run ends with the center holding every hub's last
    // merge, each copy checked.
    void aRunWithHubMergesEndsWithTheHubsLastMerge_data() {
        QTest::addColumn<QString>("centerCodec");
        QTest::newRow("fp32") << "fp32";
        QTest::newRow("int8: settled shards go exact") << "int8";
    }

    void aRunWithHubMergesEndsWithTheHubsLastMerge() {
        QFETCH(QString, centerCodec);
        auto world = makeWorld(m_config, m_train, m_trainSet.labels, "cpu"); // the same plan as the runs'
        m_plan = world->plan().shards;
        m_context = &world->context(0);
        auto runWith = [&](bool hubs, std::vector<SimEvent> &events) {
            auto config = m_config;
            config.knobs.hubMerges = hubs;
            config.codecs.center = parseCodec(centerCodec.toStdString());
            SimOptions o;
            o.stepsPerEdge = 16;
            o.finalFullEvaluation = false;
            o.observer = [&](const SimEvent &e) { events.push_back(e); };
            o.inspectNodes = m_inspect;
            Simulation sim(config, m_train, m_trainSet.labels, m_test, o);
            return sim.run();
        };
        std::vector<SimEvent> hubEvents, centerEvents;
        int hubShardsCompared = 0;
        bool centerHoldsHubsCopies = true;
        m_inspect = [&](const std::vector<std::unique_ptr<SimNode>> &nodes) {
            const auto *center = dynamic_cast<const SynapticCenter *>(nodes.front().get());
            QVERIFY(center);
            for (const auto &n : nodes)
                if (const auto *edge = dynamic_cast<const SynapticEdge *>(n.get()); edge && edge->hub())
                    for (int shard = 0; shard < int(m_plan.size()); ++shard)
                        if (hubNodeOfShard(*m_context, shard) == edge->id()) {
                            ++hubShardsCompared;
                            centerHoldsHubsCopies = centerHoldsHubsCopies &&
                                                    edge->hub()->version(shard) == center->version(shard) &&
                                                    edge->hub()->checksum(shard) == center->checksum(shard);
                        }
        };
        const auto viaHubs = runWith(true, hubEvents);
        m_inspect = nullptr;
        QCOMPARE(hubShardsCompared, int(m_plan.size()));
        QVERIFY(centerHoldsHubsCopies);
        const auto viaCenter = runWith(false, centerEvents);
        QVERIFY2(viaHubs.stoppedEarly.empty(), viaHubs.stoppedEarly.c_str());
        int checked = 0, mismatches = 0;
        for (const auto &e : hubEvents)
            if (const auto *c = std::get_if<ConsistencyEvent>(&e)) {
                checked += c->checked;
                mismatches += c->mismatches;
            }
        QVERIFY(checked > 0);
        QCOMPARE(mismatches, 0);
        QVERIFY(viaHubs.wanByKind.at("center_delta").bytes > 0); // the other region's deltas to each hub
        // The center's bytes: pulls, their answers, leases; not the
        // regions' deltas and the answers to them.
        QVERIFY2(viaHubs.bytesToCenter * 2 < viaCenter.bytesToCenter,
                 qPrintable(QString("%1 vs %2").arg(viaHubs.bytesToCenter).arg(viaCenter.bytesToCenter)));
        QVERIFY2(viaHubs.finalAccuracy > 0.5, qPrintable(QString::number(viaHubs.finalAccuracy)));
    }
};

QTEST_GUILESS_MAIN(TestHubMerges)
#include "tst_hub_merges.moc"
