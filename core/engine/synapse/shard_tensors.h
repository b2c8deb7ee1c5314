#pragma once

#include "layer_layout.h"
#include "shard_planner.h"

#include <torch/nn/module.h>

#include <map>
#include <string>
#include <vector>

namespace synaptic::engine {

// Reads and writes one shard's rows of a model replica as one flat tensor:
// the unit an edge pushes (gradients) and an owner sends back (values). The
// slices are taken, in layer-tensor order, from rows [rowBegin, rowEnd) of
// every tensor that follows the layer's rows (weight, bias, batch-norm), so
// flat.numel() == shard.parameters. Tensors stay on the model's device.
class ShardTensors {
public:
    ShardTensors(torch::nn::Module &model, const std::vector<LayerLayout> &layers);

    torch::Tensor values(const ShardSpec &shard) const;
    // The accumulated .grad of the shard's rows (zeros where a tensor has no
    // gradient yet).
    torch::Tensor gradients(const ShardSpec &shard) const;
    // Copies `flat` into the shard's rows without recording autograd history.
    // Throws std::invalid_argument if the size does not match or the values
    // are not finite (a NaN update must never reach a replica).
    void setValues(const ShardSpec &shard, const torch::Tensor &flat);

private:
    std::vector<torch::Tensor> slices(const ShardSpec &shard, bool grads) const;

    std::map<std::string, std::vector<torch::Tensor>> m_tensorsOfLayer;
};

} // namespace synaptic::engine
