// Error-feedback residuals and the value-delta record are per shard and move
// with the shard (issue 14): a real owner merges real gradients and syncs
// with the center under lossy codecs, hands the shard to another edge of
// its region, and the new owner holds exactly what the old one did, in the
// simulator's message and after the live wire's encoding.
#include "test_threads.h"
#include "core/data/fashion_mnist.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/strategies/synaptic_owner.h"
#include "core/engine/tensor_data.h"
#include "core/rpc/wire/message_codec.h"

#include <ATen/ATen.h>

#include <QTest>

using namespace synaptic;
using namespace synaptic::engine;

class TestCodecHandoff : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;

private Q_SLOTS:
    void initTestCase() {
        setTestThreads();
        m_trainSet = data::loadFashionMnist(data::resolveDataDir(""), data::Split::Train, 2000);
        m_train = toTensors(m_trainSet, "cpu");
    }

    void residualAndPublishedCopyMoveWithTheShard_data() {
        QTest::addColumn<bool>("overTheWire");
        QTest::newRow("simulator") << false;
        QTest::newRow("live wire") << true;
    }
    void residualAndPublishedCopyMoveWithTheShard() {
        QFETCH(bool, overTheWire);
        ClusterConfig config = loadClusterConfig(QFINDTESTDATA("data/tiny_cluster.json").toStdString());
        config.codecs.center = parseCodec("topk:0.05");
        config.codecs.values = parseCodec("int8");
        config.knobs.centerSyncWindows = 2; // the second merge sends the shard's delta to the center
        auto world = makeWorld(config, m_train, m_trainSet.labels, "cpu");
        SynapticOwner from(world->context(SimWorld::nodeOfEdge(0)), nullptr);
        SynapticOwner to(world->context(SimWorld::nodeOfEdge(1)), nullptr);
        const int shard = from.ownedShards().front();
        QVERIFY(!to.owns(shard));
        const auto size = world->plan().shards[std::size_t(shard)].parameters;

        // Two merged windows from each edge of the region; the second syncs with the center.
        Outbox out;
        auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
        for (int window = 0; window < 2; ++window) {
            for (int edge = 0; edge < 3; ++edge) {
                Message m;
                m.kind = MessageKind::Gradients;
                m.origin = edge;
                m.lease = Lease{1, 100};
                m.writtenAt = 1.0;
                m.round = std::uint64_t(window + 1);
                ShardItem item;
                item.shard = shard;
                item.version = from.version(shard);
                item.data = at::randn({size}, gen, at::kFloat).mul_(0.01);
                item.contributionIds = {std::uint64_t(window * 10 + edge)};
                m.shards.push_back(item);
                from.onGradients(1.0, std::move(m), true, 0.1, out);
            }
        }
        QCOMPARE(from.version(shard), std::uint64_t(2));
        int deltas = 0;
        for (const auto &m : out.messages)
            if (m.kind == MessageKind::CenterDelta)
                for (const auto &it : m.shards)
                    if (it.shard == shard) {
                        ++deltas;
                        QCOMPARE(it.coding.codec, Codec::TopK); // what the wire carries
                    }
        QCOMPARE(deltas, 1);
        const at::Tensor residual = from.centerResidual(shard).clone();
        const at::Tensor published = from.publishedValues(shard).clone();
        QVERIFY(residual.defined() && residual.abs().sum().item<double>() > 0);
        QVERIFY(published.defined());

        Outbox moved;
        QCOMPARE(QString::fromStdString(from.moveShard(3.0, shard, 1, moved)), QString());
        QVERIFY(!from.owns(shard));
        Message handoff;
        for (auto &m : moved.messages)
            if (m.kind == MessageKind::Handoff)
                handoff = std::move(m);
        QCOMPARE(handoff.kind, MessageKind::Handoff);
        if (overTheWire) {
            const auto pb = rpc::toProto(handoff);
            std::string bytes;
            QVERIFY(pb.SerializeToString(&bytes));
            synaptic::v1::NodeMessage back;
            QVERIFY(back.ParseFromString(bytes));
            handoff = rpc::fromProto(back);
        }
        Outbox taken;
        const auto shards = to.onHandoff(3.1, std::move(handoff), taken);
        QCOMPARE(shards, std::vector<int>{shard});
        QVERIFY(at::equal(to.centerResidual(shard), residual));
        QVERIFY(at::equal(to.publishedValues(shard), published));
        QCOMPARE(to.version(shard), std::uint64_t(2));
    }
};

QTEST_GUILESS_MAIN(TestCodecHandoff)
#include "tst_codec_handoff.moc"
