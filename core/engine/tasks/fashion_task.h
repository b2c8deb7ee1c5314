#pragma once

#include "task_model.h"

#include <memory>
#include <string>

namespace synaptic::engine {

// Fashion-MNIST with the split CNN (model.h): BranchyNet's joint loss of the
// main and early-exit heads; the only task early-exit serving runs on.
std::unique_ptr<TaskModel> makeFashionTaskModel();

// The IDX files under `dir` (data::resolveDataDir's lookup) as tensors.
TaskData loadFashionData(const std::string &dir, const std::string &device);

// Training FLOPs of one sample (forward + backward, about 3x the forward).
double fashionTrainFlopsPerSample();

} // namespace synaptic::engine
