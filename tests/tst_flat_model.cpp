// FlatModel: parameters and gradients live in two flat tensors; shards are
// contiguous ranges of the shard order and agree with ShardTensors' view of
// the same rows, so a shard moves with one tensor operation.
#include "core/engine/model.h"
#include "core/engine/synapse/flat_model.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/synapse/shard_tensors.h"

#include <torch/nn/functional/loss.h>
#include <torch/utils.h>

#include <QTest>

using namespace synaptic::engine;

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
        FlatModel flat(m_plan, m_layers, "cpu");
        ShardTensors view(*flat.net(), m_layers);
        QCOMPARE(flat.size(), parameterCount(*flat.net()));
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
        FlatModel a(m_plan, m_layers, "cpu");
        torch::manual_seed(4);
        FlatModel b(m_plan, m_layers, "cpu");
        QVERIFY(!torch::equal(a.values(), b.values()));
        b.setValues(a.values());
        QVERIFY(torch::equal(a.values(), b.values()));
        // The module itself computes with the new values.
        const auto x = torch::randn({2, 1, 28, 28});
        a.net()->eval();
        b.net()->eval();
        QVERIFY(torch::allclose(a.net()->forward(x).logits, b.net()->forward(x).logits));

        const auto shard = m_plan.shards[5];
        b.setShardValues(shard.id, torch::full({shard.parameters}, 0.25f));
        QVERIFY(torch::equal(b.shardValues(shard.id), torch::full({shard.parameters}, 0.25f)));
        QVERIFY(torch::equal(b.shardValues(4), a.shardValues(4))); // neighbours untouched
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, b.setShardValues(shard.id, torch::zeros({3})));
    }

    void backwardFillsTheFlatGradients() {
        torch::manual_seed(3);
        FlatModel flat(m_plan, m_layers, "cpu");
        ShardTensors view(*flat.net(), m_layers);
        const auto x = torch::randn({8, 1, 28, 28});
        const auto y = torch::randint(0, 10, {8}, torch::kInt64);
        for (int round = 0; round < 2; ++round) { // a second backward must not accumulate on the first
            flat.zeroGradients();
            torch::nn::functional::cross_entropy(flat.net()->forward(x).logits, y).backward();
        }
        const auto grads = flat.gradients();
        QVERIFY(grads.abs().sum().item<double>() > 0);
        for (const auto &shard : m_plan.shards)
            QVERIFY(torch::allclose(grads.slice(0, flat.shardOffset(shard.id), flat.shardOffset(shard.id + 1)),
                                    view.gradients(shard)));
    }

    void buffersRoundTrip() {
        FlatModel flat(m_plan, m_layers, "cpu");
        const auto b = flat.buffers();
        // Running mean and var of every batch-norm: bn1, squeeze_bn, expand_bn, bn2.
        QCOMPARE(b.numel(), std::int64_t(2 * (32 + 4 + 32 + 64)));
        flat.setBuffers(torch::full_like(b, 2.f));
        QVERIFY(torch::equal(flat.buffers(), torch::full_like(b, 2.f)));
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
