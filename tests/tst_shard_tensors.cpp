// One shard's rows of the real model as a flat tensor: sizes match the plan,
// writes touch exactly the shard's rows, gradients line up with values, and
// malformed or NaN updates are refused before they reach the replica.
#include "core/engine/model.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/synapse/shard_tensors.h"

#include <torch/nn/functional/loss.h>
#include <torch/utils.h>

#include <QTest>

using namespace synaptic::engine;

class TestShardTensors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(0); }

    void sizesMatchThePlan() {
        SynapticNet model;
        const auto layers = layoutOf(*model);
        const ShardPlan plan = planShards(layers, PlanTopology{{8}});
        ShardTensors st(*model, layers);
        std::int64_t total = 0;
        for (const auto &s : plan.shards) {
            QCOMPARE(st.values(s).numel(), s.parameters);
            total += s.parameters;
        }
        QCOMPARE(total, parameterCount(*model));
    }

    void writeTouchesOnlyItsRows() {
        SynapticNet model;
        const auto layers = layoutOf(*model);
        const ShardPlan plan = planShards(layers, PlanTopology{{8}});
        ShardTensors st(*model, layers);
        // A conv2 shard in the middle of the layer: channels and their batch-norm.
        const ShardSpec *target = nullptr;
        for (const auto &s : plan.shards)
            if (s.layer == "conv2" && s.rowBegin > 0 && s.rowEnd < 64)
                target = &s;
        QVERIFY(target);
        std::vector<torch::Tensor> before;
        for (const auto &s : plan.shards)
            before.push_back(st.values(s));
        st.setValues(*target, torch::full({target->parameters}, 0.5f));
        for (std::size_t i = 0; i < plan.shards.size(); ++i) {
            const auto now = st.values(plan.shards[i]);
            if (plan.shards[i].id == target->id)
                QVERIFY(torch::all(now == 0.5f).item<bool>());
            else
                QVERIFY(torch::equal(now, before[i]));
        }
        // The model itself changed: conv2's weight rows and bn2's weight.
        QVERIFY(torch::all(model->conv2->weight.slice(0, target->rowBegin, target->rowEnd) == 0.5f).item<bool>());
        QVERIFY(torch::all(model->bn2->weight.slice(0, target->rowBegin, target->rowEnd) == 0.5f).item<bool>());
        QVERIFY(!torch::all(model->conv2->weight.slice(0, 0, target->rowBegin) == 0.5f).item<bool>());
    }

    void gradientsLineUpWithValues() {
        SynapticNet model;
        const auto layers = layoutOf(*model);
        const ShardPlan plan = planShards(layers, PlanTopology{{8}});
        ShardTensors st(*model, layers);
        const auto &shard = plan.shards.front();
        QVERIFY(torch::all(st.gradients(shard) == 0).item<bool>()); // no backward yet
        const auto x = torch::randn({8, 1, 28, 28});
        const auto y = torch::randint(0, 10, {8}, torch::kInt64);
        torch::nn::functional::cross_entropy(model->forward(x).logits, y).backward();
        const auto g = st.gradients(shard);
        QCOMPARE(g.numel(), shard.parameters);
        QVERIFY(g.abs().sum().item<double>() > 0);
        // First slice is the layer weight's rows, flattened.
        const auto weightGrad = model->conv1->weight.grad().slice(0, shard.rowBegin, shard.rowEnd).reshape({-1});
        QVERIFY(torch::equal(g.slice(0, 0, weightGrad.numel()), weightGrad));
    }

    void badUpdatesRefused() {
        SynapticNet model;
        const auto layers = layoutOf(*model);
        const ShardPlan plan = planShards(layers, PlanTopology{{8}});
        ShardTensors st(*model, layers);
        const auto &shard = plan.shards.back();
        const auto before = st.values(shard);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, st.setValues(shard, torch::zeros({shard.parameters + 1})));
        auto poisoned = torch::zeros({shard.parameters});
        poisoned[3] = std::nanf("");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, st.setValues(shard, poisoned));
        poisoned[3] = INFINITY;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, st.setValues(shard, poisoned));
        QVERIFY(torch::equal(st.values(shard), before)); // nothing was written
        ShardSpec bogus = shard;
        bogus.layer = "nope";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, st.values(bogus));
    }
};

QTEST_APPLESS_MAIN(TestShardTensors)
#include "tst_shard_tensors.moc"
