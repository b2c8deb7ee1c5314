// FlatModel: parameters and gradients live in two flat tensors; shards are
// contiguous ranges of the shard order and agree with ShardTensors' view of
// the same rows, so a shard moves with one tensor operation.
#include "core/engine/model.h"
#include "core/engine/tasks/fashion_task.h"
#include "core/engine/tasks/langid_task.h"
#include "core/engine/synapse/flat_model.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/synapse/shard_tensors.h"

#include <torch/nn/functional/loss.h>
#include <torch/utils.h>

#include <QTest>

using namespace synaptic::engine;

namespace {
SynapticNet &net(FlatModel &flat) { return *flat.task().splitNet(); }
} // namespace

class TestFlatModel : public QObject {
    Q_OBJECT
    std::vector<LayerLayout> m_layers;
    ShardPlan m_plan;

private Q_SLOTS:
    void initTestCase() {
        SynapticNet probe;
        m_layers = layoutOf(*probe);
        m_plan = planShards(m_layers, PlanTopology{{4}});
    }

    void shardsAgreeWithShardTensors() {
        torch::manual_seed(3);
        FlatModel flat(makeFashionTaskModel(), m_plan, m_layers, "cpu");
        ShardTensors view(flat.module(), m_layers);
        QCOMPARE(flat.size(), parameterCount(flat.module()));
        QCOMPARE(flat.shardCount(), int(m_plan.shards.size()));
        const auto all = flat.values();
        for (const auto &shard : m_plan.shards) {
            const auto expected = view.values(shard);
            QVERIFY(torch::equal(flat.shardValues(shard.id), expected));
            QVERIFY(torch::equal(all.slice(0, flat.shardOffset(shard.id), flat.shardOffset(shard.id + 1)), expected));
        }
    }

    void setValuesRoundTripsAndWritesTheModule() {
        torch::manual_seed(3);
        FlatModel a(makeFashionTaskModel(), m_plan, m_layers, "cpu");
        torch::manual_seed(4);
        FlatModel b(makeFashionTaskModel(), m_plan, m_layers, "cpu");
        QVERIFY(!torch::equal(a.values(), b.values()));
        b.setValues(a.values());
        QVERIFY(torch::equal(a.values(), b.values()));
        // The module itself computes with the new values.
        const auto x = torch::randn({2, 1, 28, 28});
        net(a)->eval();
        net(b)->eval();
        QVERIFY(torch::allclose(net(a)->forward(x).logits, net(b)->forward(x).logits));

        const auto shard = m_plan.shards[5];
        b.setShardValues(shard.id, torch::full({shard.parameters}, 0.25f));
        QVERIFY(torch::equal(b.shardValues(shard.id), torch::full({shard.parameters}, 0.25f)));
        QVERIFY(torch::equal(b.shardValues(4), a.shardValues(4))); // neighbours untouched
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, b.setShardValues(shard.id, torch::zeros({3})));
    }

    void backwardFillsTheFlatGradients() {
        torch::manual_seed(3);
        FlatModel flat(makeFashionTaskModel(), m_plan, m_layers, "cpu");
        ShardTensors view(flat.module(), m_layers);
        const auto x = torch::randn({8, 1, 28, 28});
        const auto y = torch::randint(0, 10, {8}, torch::kInt64);
        for (int round = 0; round < 2; ++round) { // a second backward must not accumulate on the first
            flat.zeroGradients();
            torch::nn::functional::cross_entropy(net(flat)->forward(x).logits, y).backward();
        }
        const auto grads = flat.gradients();
        QVERIFY(grads.abs().sum().item<double>() > 0);
        for (const auto &shard : m_plan.shards)
            QVERIFY(torch::allclose(grads.slice(0, flat.shardOffset(shard.id), flat.shardOffset(shard.id + 1)),
                                    view.gradients(shard)));
    }

    void buffersRoundTrip() {
        FlatModel flat(makeFashionTaskModel(), m_plan, m_layers, "cpu");
        const auto b = flat.buffers();
        // Running mean and var of every batch-norm: bn1, squeeze_bn, expand_bn, bn2.
        QCOMPARE(b.numel(), std::int64_t(2 * (32 + 4 + 32 + 64)));
        flat.setBuffers(torch::full_like(b, 2.f));
        QVERIFY(torch::equal(flat.buffers(), torch::full_like(b, 2.f)));
    }

    // A task without batch-norm (langid's table and head) has no buffers:
    // an empty tensor that round-trips, and its rows shard like any layer.
    void aModelWithoutBuffersHasAnEmptyBufferTensor() {
        const LangIdShape shape{1 << 10, 8, 12};
        LangIdNet probe(shape, /*sparse=*/false);
        const auto layers = layoutOf(*probe);
        const auto plan = planShards(layers, PlanTopology{{4}});
        FlatModel flat(makeLangIdTaskModel(shape), plan, layers, "cpu");
        QCOMPARE(flat.size(), std::int64_t((1 << 10) * 8 + 12 * 9));
        QCOMPARE(flat.buffers().numel(), std::int64_t(0));
        flat.setBuffers(flat.buffers());
        QVERIFY(flat.task().splitNet() == nullptr);
        const auto values = flat.values();
        flat.setValues(values);
        QVERIFY(torch::equal(flat.values(), values));
    }

    void checksumSeesEveryBit() {
        const auto t = torch::arange(100, torch::kFloat32);
        auto u = t.clone();
        QCOMPARE(tensorChecksum(t), tensorChecksum(u));
        u[37] = std::nextafter(37.f, 100.f);
        QVERIFY(tensorChecksum(t) != tensorChecksum(u));
    }
};

QTEST_APPLESS_MAIN(TestFlatModel)
#include "tst_flat_model.moc"
