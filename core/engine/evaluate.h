#pragma once

#include "model.h"
#include "tensor_data.h"
#include "tasks/task_model.h"

namespace synaptic::engine {

// Top-1 accuracy of both heads over the whole set, in eval mode without
// gradients; restores the module's training mode afterwards. batchSize 0:
// evaluationBatch() for the set's device.
Accuracy evaluate(SynapticNet &model, const TensorSet &set, int batchSize = 0);

// The forward batch for evaluating on `device`. On CPU a batch of 1,000
// images is 7x slower than 64 (10,000 test images: 15.5 s against 2.1 s
// on this 2-core VM): the activations of a large batch fall out of the
// cache. The cliff moves with the thread count (between 128 and 200 at two
// threads, between 64 and 128 at one), hence 64. On a GPU large batches win.
int evaluationBatch(const torch::Device &device);

} // namespace synaptic::engine
