#pragma once

#include "model.h"
#include "tensor_data.h"

namespace synaptic::engine {

struct Accuracy {
    double main = 0;   // full network
    double exit = 0;   // early-exit head alone
};

// Top-1 accuracy of both heads over the whole set, in eval mode without
// gradients; restores the module's training mode afterwards.
Accuracy evaluate(SynapticNet &model, const TensorSet &set, int batchSize = 1000);

} // namespace synaptic::engine
