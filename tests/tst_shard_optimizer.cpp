// Per-shard Adam must be torch::optim::Adam's arithmetic exactly (owners and
// the parameter server use it), and the outer optimizer must be DiLoCo's
// Nesterov step or a plain average.
#include "core/engine/synapse/shard_optimizer.h"

#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <QTest>

using namespace synaptic::engine;

class TestShardOptimizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void adamMatchesLibTorch() {
        torch::manual_seed(11);
        auto reference = torch::randn({50}).requires_grad_(true);
        auto ours = reference.detach().clone();
        torch::optim::Adam adam({reference}, torch::optim::AdamOptions(0.01));
        AdamState state;
        AdamOptions options;
        options.lr = 0.01;
        for (int step = 0; step < 25; ++step) {
            const auto grad = torch::randn({50});
            reference.mutable_grad() = grad.clone();
            adam.step();
            adamStep(ours, grad, state, options);
        }
        QCOMPARE(state.step, std::int64_t(25));
        QVERIFY(torch::allclose(ours, reference.detach(), 1e-6, 1e-7));
    }

    void averageAddsTheMeanDelta() {
        OuterOptimizer outer("average", 0.7, 0.9);
        auto global = torch::tensor({1.f, 2.f});
        at::Tensor momentum;
        outer.step(global, torch::tensor({0.5f, -1.f}), momentum);
        QVERIFY(torch::allclose(global, torch::tensor({1.5f, 1.f})));
        QVERIFY(!momentum.defined()); // averaging keeps no state
    }

    void nesterovFollowsTheDiLoCoFormula() {
        const double lr = 0.7, mu = 0.9;
        OuterOptimizer outer("nesterov", lr, mu);
        auto global = torch::zeros({1});
        at::Tensor momentum;
        // Outer gradient g = -delta; buf = mu*buf + g; global -= lr*(g + mu*buf).
        double buf = 0, expected = 0;
        for (double delta : {1.0, 0.5, -0.25}) {
            outer.step(global, torch::tensor({float(delta)}), momentum);
            buf = mu * buf - delta;
            expected -= lr * (-delta + mu * buf);
            QVERIFY(std::abs(global.item<double>() - expected) < 1e-6);
        }
    }

    void unknownKindIsRefused() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, OuterOptimizer("momentum", 1, 0));
    }
};

QTEST_APPLESS_MAIN(TestShardOptimizer)
#include "tst_shard_optimizer.moc"
