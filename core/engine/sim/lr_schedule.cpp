#include "lr_schedule.h"

#include "cluster_config.h"

#include "core/engine/learning_rate.h"

namespace synaptic::engine {

double scheduledLearningRate(const ClusterConfig &c, std::uint64_t stepsDone, std::uint64_t budget) {
    if (budget == 0)
        return c.learningRate;
    return decayedLearningRate(c.learningRate, double(stepsDone) / double(budget), c.lrDecayFrom, c.lrFinal);
}

} // namespace synaptic::engine
