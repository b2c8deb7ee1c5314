#include "evaluate.h"

#include <torch/csrc/autograd/grad_mode.h>

namespace synaptic::engine {

int evaluationBatch(const torch::Device &device) { return device.is_cpu() ? 64 : 1000; }

Accuracy evaluate(SynapticNet &model, const TensorSet &set, int batchSize) {
    if (batchSize <= 0)
        batchSize = evaluationBatch(set.labels.device());
    const bool wasTraining = model->is_training();
    model->eval();
    torch::NoGradGuard noGrad;
    const std::int64_t n = set.size();
    auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(set.labels.device()));
    auto exitCorrect = correct.clone();
    for (std::int64_t start = 0; start < n; start += batchSize) {
        const std::int64_t end = std::min(n, start + batchSize);
        auto out = model->forward(set.inputs.slice(0, start, end));
        auto labels = set.labels.slice(0, start, end);
        correct += out.logits.argmax(1).eq(labels).sum();
        exitCorrect += out.exitLogits.argmax(1).eq(labels).sum();
    }
    model->train(wasTraining);
    if (n == 0)
        return {};
    return {static_cast<double>(correct.item<std::int64_t>()) / static_cast<double>(n),
            static_cast<double>(exitCorrect.item<std::int64_t>()) / static_cast<double>(n)};
}

} // namespace synaptic::engine
