#pragma once

#include "model.h"
#include "tensor_data.h"
#include "tasks/task_model.h"

namespace synaptic::engine {

// Top-1 accuracy of both heads over the whole set, in eval mode without
// gradients; restores the module's training mode afterwards.
Accuracy evaluate(SynapticNet &model, const TensorSet &set, int batchSize = 1000);

} // namespace synaptic::engine
