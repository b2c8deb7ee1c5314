#include "lr_schedule.h"

#include "cluster_config.h"

#include "core/engine/learning_rate.h"

#include <algorithm>

namespace synaptic::engine {

double scheduledLearningRate(const ClusterConfig &c, std::uint64_t stepsDone, std::uint64_t budget) {
    if (budget == 0 || c.lrDecayFrom >= 1.0 || c.lrFinal >= 1.0)
        return c.learningRate;
    const double progress = std::clamp(double(stepsDone) / double(budget), 0.0, 1.0);
    if (progress <= c.lrDecayFrom)
        return c.learningRate;
    const double t = (progress - c.lrDecayFrom) / (1.0 - c.lrDecayFrom);
    return c.learningRate * (c.lrFinal + (1.0 - c.lrFinal) * halfCosine(t));
}

} // namespace synaptic::engine
