#pragma once

#include "layer_layout.h"

#include <vector>

namespace torch::nn {
class Module;
}

namespace synaptic::engine {

// The shardable layers of a module, in registration order. A module whose
// weight is 1-D (batch-norm) is per-channel: its tensors follow the rows of
// the layer before it, so a shard of conv channels carries their norm too.
std::vector<LayerLayout> layoutOf(const torch::nn::Module &model);

} // namespace synaptic::engine
