#include "learning_rate.h"

#include <torch/optim/adam.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace synaptic::engine {

double halfCosine(double t) { return 0.5 * (1.0 + std::cos(std::numbers::pi * std::clamp(t, 0.0, 1.0))); }

double cosineLearningRate(double base, long long step, long long totalSteps) {
    if (totalSteps <= 0)
        return base;
    return base * halfCosine(double(step) / double(totalSteps));
}

void setAdamLearningRate(torch::optim::Adam &adam, double lr) {
    for (auto &group : adam.param_groups())
        static_cast<torch::optim::AdamOptions &>(group.options()).lr(lr);
}

} // namespace synaptic::engine
