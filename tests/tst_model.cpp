// The CNN's shapes, size and early-exit head, and device resolution.
#include "core/engine/device.h"
#include "core/engine/model.h"

#include <torch/nn/functional/loss.h>
#include <torch/utils.h>

#include <QTest>

using namespace synaptic::engine;

class TestModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(0); }

    void outputShapes_data() {
        QTest::addColumn<int>("batch");
        QTest::newRow("single image") << 1;
        QTest::newRow("batch of 64") << 64;
    }
    void outputShapes() {
        QFETCH(int, batch);
        SynapticNet model;
        const auto out = model->forward(torch::randn({batch, 1, 28, 28}));
        QCOMPARE(out.logits.sizes().vec(), (std::vector<std::int64_t>{batch, 10}));
        QCOMPARE(out.exitLogits.sizes().vec(), (std::vector<std::int64_t>{batch, 10}));
        QVERIFY(torch::isfinite(out.logits).all().item<bool>());
    }

    void parameterBudget() {
        SynapticNet model;
        const auto n = parameterCount(*model);
        // "About 100K parameters", exit head included.
        QVERIFY2(n >= 90'000 && n <= 120'000, qPrintable(QString::number(n)));
        // Layers keep the output dimension first, as the shard planner needs.
        QCOMPARE(model->conv1->weight.size(0), model->conv1->bias.size(0));
        QCOMPARE(model->fc1->weight.size(0), model->fc1->bias.size(0));
        QCOMPARE(model->conv2->weight.size(1), model->conv1->weight.size(0));
    }

    void exitHeadMatchesForward() {
        SynapticNet model;
        model->eval();
        const auto x = torch::randn({8, 1, 28, 28});
        const auto full = model->forward(x);
        const auto exitOnly = model->forwardExit(x);
        QVERIFY(torch::allclose(full.exitLogits, exitOnly));
        QVERIFY(!torch::allclose(full.logits, exitOnly));
    }

    void exitLossTrainsOnlyBlockOneAndHead() {
        SynapticNet model;
        const auto x = torch::randn({4, 1, 28, 28});
        const auto y = torch::tensor({1, 2, 3, 4}, torch::kInt64);
        torch::nn::functional::cross_entropy(model->forward(x).exitLogits, y).backward();
        QVERIFY(model->exitHead->weight.grad().defined());
        QVERIFY(model->conv1->weight.grad().abs().sum().item<double>() > 0);
        // The later layers take no part in the exit path.
        QVERIFY(!model->conv2->weight.grad().defined() || model->conv2->weight.grad().abs().sum().item<double>() == 0);
        QVERIFY(!model->fc2->weight.grad().defined() || model->fc2->weight.grad().abs().sum().item<double>() == 0);
    }

    void macsCountPlausible() {
        // conv2 dominates: 14*14*64*32*9 = 3,612,672 multiply-adds.
        const auto macs = SynapticNetImpl::forwardMacsPerSample();
        QVERIFY(macs > 3'612'672 && macs < 4'500'000);
    }

    void deviceResolution() {
        QCOMPARE(resolveDevice("cpu"), std::string("cpu"));
        QCOMPARE(resolveDevice("auto"), std::string(cudaAvailable() ? "cuda" : "cpu"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveDevice("tpu"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveDevice(""));
        if (cudaAvailable())
            QCOMPARE(resolveDevice("cuda"), std::string("cuda"));
        else
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveDevice("cuda"));
    }

    void modelRunsOnResolvedDevice() {
        const std::string device = resolveDevice("auto");
        SynapticNet model;
        model->to(torch::Device(device));
        const auto out = model->forward(torch::randn({2, 1, 28, 28}, torch::Device(device)));
        QCOMPARE(out.logits.device().str(), torch::Device(device).str());
    }
};

QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
