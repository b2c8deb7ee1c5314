#include "learning_rate.h"

#include <torch/optim/adam.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace synaptic::engine {

double decayedLearningRate(double base, double progress, double decayFrom, double final) {
    if (decayFrom >= 1.0 || final >= 1.0)
        return base;
    progress = std::clamp(progress, 0.0, 1.0);
    if (progress <= decayFrom)
        return base;
    const double t = (progress - decayFrom) / (1.0 - decayFrom);
    const double halfCosine = 0.5 * (1.0 + std::cos(std::numbers::pi * t)); // 1 at t = 0, 0 at t = 1
    return base * (final + (1.0 - final) * halfCosine);
}

double cosineLearningRate(double base, long long step, long long totalSteps) {
    if (totalSteps <= 0)
        return base;
    return decayedLearningRate(base, double(step) / double(totalSteps), 0.0, 0.0);
}

void setAdamLearningRate(torch::optim::Adam &adam, double lr) {
    for (auto &group : adam.param_groups())
        static_cast<torch::optim::AdamOptions &>(group.options()).lr(lr);
}

} // namespace synaptic::engine
