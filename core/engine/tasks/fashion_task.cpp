#include "fashion_task.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/evaluate.h"
#include "core/engine/model.h"

#include <torch/nn/functional/loss.h>

namespace synaptic::engine {

namespace {

class FashionTaskModel final : public TaskModel {
public:
    torch::nn::Module &module() override { return *m_net; }

    Loss trainingLoss(const TensorSet &batch, double exitWeight) override {
        m_net->train();
        const ModelOutput out = m_net->forward(batch.inputs);
        const auto main = torch::nn::functional::cross_entropy(out.logits, batch.labels);
        return {main + exitWeight * torch::nn::functional::cross_entropy(out.exitLogits, batch.labels),
                main.detach()};
    }

    Accuracy evaluate(const TensorSet &set) override { return engine::evaluate(m_net, set); }

    SynapticNet *splitNet() override { return &m_net; }

private:
    SynapticNet m_net;
};

} // namespace

std::unique_ptr<TaskModel> makeFashionTaskModel() { return std::make_unique<FashionTaskModel>(); }

TaskData loadFashionData(const std::string &dir, const std::string &device) {
    const std::string resolved = data::resolveDataDir(dir);
    auto trainSet = data::loadFashionMnist(resolved, data::Split::Train);
    const auto testSet = data::loadFashionMnist(resolved, data::Split::Test);
    TaskData d;
    d.train = toTensors(trainSet, device);
    d.test = toTensors(testSet, device);
    d.trainLabels = std::move(trainSet.labels);
    return d;
}

double fashionTrainFlopsPerSample() { return 6.0 * double(SynapticNetImpl::forwardMacsPerSample()); }

} // namespace synaptic::engine
