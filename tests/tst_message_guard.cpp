// The live peer guard (rpc::MessageGuard) under hub merges: a shard's hub,
// an edge, takes the regions' deltas of the shards it is hub of and sends
// them the answers in the center's place; the center's pulls go to it and
// its answers back. Each only for shards whose hub it is, and with the
// knob off, none of it. (The rest of the guard: tst_live_hostile, against
// running nodes.)
#include "core/data/fashion_mnist.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/strategies/shard_hubs.h"
#include "core/engine/tensor_data.h"
#include "core/rpc/live/message_guard.h"
#include "test_threads.h"

#include <ATen/ATen.h>

#include <QTest>

#include <algorithm>

using namespace synaptic;
using namespace synaptic::engine;

class TestMessageGuard : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    ClusterConfig m_config;

private Q_SLOTS:
    void initTestCase() {
        setTestThreads();
        m_trainSet = data::loadFashionMnist(data::resolveDataDir(""), data::Split::Train, 200);
        m_train = toTensors(m_trainSet, "cpu");
        m_config = loadClusterConfig(QFINDTESTDATA("data/tiny_cluster.json").toStdString());
        m_config.knobs.hubMerges = true;
    }

    void thePeerGuardTakesHubTrafficOnlyForTheHubsShards() {
        auto world = makeWorld(m_config, m_train, m_trainSet.labels, "cpu");
        const auto &ctx = world->context(0);
        const auto hubs = hubNodesOfShards(ctx);
        QCOMPARE(hubs.size(), world->plan().shards.size());
        const int hub = hubs[0];
        int otherShard = -1; // a shard another node is hub of
        for (std::size_t s = 1; s < hubs.size() && otherShard < 0; ++s)
            if (hubs[s] != hub)
                otherShard = int(s);
        QVERIFY(otherShard > 0);
        const int hubRegion = world->regionOfEdge(SimWorld::edgeOfNode(hub));
        const int owner = SimWorld::nodeOfEdge(world->plan().owner[std::size_t(1 - hubRegion)][0]);
        QVERIFY(owner != hub);
        auto message = [&](MessageKind kind, int from, int to, int shard, bool data) {
            Message m;
            m.kind = kind;
            m.from = from;
            m.to = to;
            ShardItem item;
            item.shard = shard;
            item.version = 1;
            if (data)
                item.data = at::zeros({world->plan().shards[std::size_t(shard)].parameters});
            m.shards.push_back(std::move(item));
            return m;
        };
        rpc::MessageGuard atHub(hub, *world->shape, *world->model, hubs);
        rpc::MessageGuard atOwner(owner, *world->shape, *world->model, hubs);
        rpc::MessageGuard atCenter(kCenterNode, *world->shape, *world->model, hubs);
        QCOMPARE(atHub.admit(message(MessageKind::CenterDelta, owner, hub, 0, true)), std::string());
        QCOMPARE(atHub.admit(message(MessageKind::CenterDelta, owner, hub, otherShard, true)),
                 std::string("center_delta is for the center"));
        QCOMPARE(atOwner.admit(message(MessageKind::CenterValues, hub, owner, 0, true)), std::string());
        QCOMPARE(atOwner.admit(message(MessageKind::CenterValues, hub, owner, otherShard, true)),
                 std::string("center_values comes only from the center"));
        auto pull = message(MessageKind::HubPull, kCenterNode, hub, 0, false);
        pull.owners = {0, 1};
        QCOMPARE(atHub.admit(pull), std::string());
        pull.owners = {5};
        QCOMPARE(atHub.admit(pull), std::string("hub_pull names unknown region 5"));
        QCOMPARE(atHub.admit(message(MessageKind::HubPull, kCenterNode, hub, otherShard, false)),
                 "hub_pull names a shard whose hub is not node " + std::to_string(hub));
        QCOMPARE(atHub.admit(message(MessageKind::HubPull, owner, hub, 0, false)),
                 std::string("hub_pull comes only from the center"));
        QCOMPARE(atCenter.admit(message(MessageKind::HubCopy, hub, kCenterNode, 0, true)), std::string());
        const int otherHub = hubs[std::size_t(otherShard)];
        QCOMPARE(atCenter.admit(message(MessageKind::HubCopy, otherHub, kCenterNode, 0, true)),
                 "hub_copy names a shard whose hub is not node " + std::to_string(otherHub));
        // Every edge of the tiny cluster hosts a hub; one with a single hub
        // (every shard's) shows an edge that hosts none.
        rpc::MessageGuard oneHub(kCenterNode, *world->shape, *world->model, std::vector<int>(hubs.size(), hub));
        Message nothing = message(MessageKind::HubCopy, owner, kCenterNode, 0, true);
        nothing.shards.clear(); // "nothing changed", from a node that answers no pull
        QCOMPARE(oneHub.admit(nothing), "hub_copy from node " + std::to_string(owner) + ", which is no shard's hub");

        rpc::MessageGuard off(hub, *world->shape, *world->model); // knobs.hub_merges off: no hubs
        QCOMPARE(off.admit(message(MessageKind::CenterDelta, owner, hub, 0, true)),
                 std::string("center_delta is for the center"));
        QCOMPARE(off.admit(message(MessageKind::HubPull, kCenterNode, hub, 0, false)),
                 std::string("hub_pull: this cluster does not merge at hubs (knobs.hub_merges is off)"));
    }
};

QTEST_GUILESS_MAIN(TestMessageGuard)
#include "tst_message_guard.moc"
