#include "plain_loop.h"

#include "core/engine/learning_rate.h"
#include "core/engine/model.h"

#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>

namespace synaptic::bench {

double plainLoopSamplesPerSecond(const engine::TensorSet &train, int batch, double lr, double exitWeight,
                                 std::uint64_t seed) {
    using Clock = std::chrono::steady_clock;
    torch::manual_seed(seed);
    engine::SynapticNet model;
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(lr));
    model->train();
    const std::int64_t n = train.size();
    const long long total = (n + batch - 1) / batch;
    long long step = 0;
    const auto start = Clock::now();
    const auto order = torch::randperm(n, torch::kInt64);
    for (std::int64_t s = 0; s < n; s += batch, ++step) {
        engine::setAdamLearningRate(optimizer, engine::cosineLearningRate(lr, step, total));
        const auto idx = order.slice(0, s, std::min(n, s + batch));
        const auto x = train.inputs.index_select(0, idx);
        const auto y = train.labels.index_select(0, idx);
        optimizer.zero_grad();
        const auto out = model->forward(x);
        const auto loss = torch::nn::functional::cross_entropy(out.logits, y) +
                          exitWeight * torch::nn::functional::cross_entropy(out.exitLogits, y);
        loss.backward();
        optimizer.step();
    }
    return double(n) / std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace synaptic::bench
