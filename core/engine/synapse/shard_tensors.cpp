#include "shard_tensors.h"

#include <torch/csrc/autograd/grad_mode.h>

#include <stdexcept>

namespace synaptic::engine {

ShardTensors::ShardTensors(torch::nn::Module &model, const std::vector<LayerLayout> &layers) {
    const auto params = model.named_parameters(/*recurse=*/true);
    for (const auto &layer : layers) {
        auto &tensors = m_tensorsOfLayer[layer.name];
        for (const auto &name : layer.tensors) {
            const torch::Tensor *t = params.find(name);
            if (!t)
                throw std::invalid_argument("ShardTensors: model has no parameter '" + name + "'");
            if (t->size(0) != layer.rows)
                throw std::invalid_argument("ShardTensors: '" + name + "' has " + std::to_string(t->size(0)) +
                                            " rows, layer '" + layer.name + "' " + std::to_string(layer.rows));
            tensors.push_back(*t); // shares storage with the model's parameter
        }
    }
}

std::vector<torch::Tensor> ShardTensors::slices(const ShardSpec &shard, bool grads) const {
    const auto it = m_tensorsOfLayer.find(shard.layer);
    if (it == m_tensorsOfLayer.end())
        throw std::invalid_argument("ShardTensors: no layer '" + shard.layer + "'");
    std::vector<torch::Tensor> out;
    for (const auto &t : it->second) {
        if (shard.rowBegin < 0 || shard.rowEnd > t.size(0) || shard.rowBegin >= shard.rowEnd)
            throw std::invalid_argument("ShardTensors: rows [" + std::to_string(shard.rowBegin) + ", " +
                                        std::to_string(shard.rowEnd) + ") outside layer '" + shard.layer + "'");
        if (grads && !t.grad().defined()) {
            // No backward yet: zeros of the slice's shape, not of the layer's.
            auto sizes = t.sizes().vec();
            sizes[0] = shard.rowEnd - shard.rowBegin;
            out.push_back(torch::zeros(sizes, t.options()));
            continue;
        }
        out.push_back((grads ? t.grad() : t).slice(0, shard.rowBegin, shard.rowEnd));
    }
    return out;
}

torch::Tensor ShardTensors::values(const ShardSpec &shard) const {
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> flat;
    for (const auto &s : slices(shard, false))
        flat.push_back(s.reshape({-1}));
    return torch::cat(flat); // a copy: later training does not change it
}

torch::Tensor ShardTensors::gradients(const ShardSpec &shard) const {
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> flat;
    for (const auto &s : slices(shard, true))
        flat.push_back(s.reshape({-1}));
    return torch::cat(flat);
}

void ShardTensors::setValues(const ShardSpec &shard, const torch::Tensor &flat) {
    if (flat.dim() != 1 || flat.numel() != shard.parameters)
        throw std::invalid_argument("ShardTensors: shard " + std::to_string(shard.id) + " expects " +
                                    std::to_string(shard.parameters) + " values, got " +
                                    std::to_string(flat.numel()));
    if (!torch::isfinite(flat).all().item<bool>())
        throw std::invalid_argument("ShardTensors: shard " + std::to_string(shard.id) +
                                    " update contains NaN or infinite values; refused");
    torch::NoGradGuard noGrad;
    std::int64_t offset = 0;
    for (auto &s : slices(shard, false)) {
        const std::int64_t n = s.numel();
        s.copy_(flat.slice(0, offset, offset + n).view(s.sizes()));
        offset += n;
    }
}

} // namespace synaptic::engine
