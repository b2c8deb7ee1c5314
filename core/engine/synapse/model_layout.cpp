#include "model_layout.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>

#include <stdexcept>

namespace synaptic::engine {

std::vector<LayerLayout> layoutOf(const torch::nn::Module &model) {
    std::vector<LayerLayout> layers;
    for (const auto &child : model.named_children()) {
        const auto params = child.value()->named_parameters(/*recurse=*/false);
        if (params.is_empty())
            continue;
        const torch::Tensor *weight = params.find("weight");
        if (!weight)
            throw std::invalid_argument("layoutOf: module '" + child.key() + "' has parameters but no weight");
        std::int64_t perRow = 0;
        std::vector<std::string> names;
        for (const auto &p : params) {
            perRow += p.value().numel() / p.value().size(0);
            names.push_back(child.key() + "." + p.key());
        }
        if (weight->dim() == 1) {
            // Per-channel module: ride with the previous layer's rows.
            if (layers.empty() || layers.back().rows != weight->size(0))
                throw std::invalid_argument("layoutOf: per-channel module '" + child.key() +
                                            "' does not follow a layer with " + std::to_string(weight->size(0)) +
                                            " rows");
            layers.back().paramsPerRow += perRow;
            layers.back().tensors.insert(layers.back().tensors.end(), names.begin(), names.end());
            continue;
        }
        LayerLayout layer;
        layer.name = child.key();
        const bool table = child.value()->as<torch::nn::EmbeddingBag>() || child.value()->as<torch::nn::Embedding>();
        layer.kind = table ? LayerLayout::Kind::Embedding
                     : weight->dim() == 4 ? LayerLayout::Kind::Conv
                                          : LayerLayout::Kind::Linear;
        layer.rows = weight->size(0);
        layer.paramsPerRow = perRow;
        layer.tensors = std::move(names);
        layers.push_back(std::move(layer));
    }
    return layers;
}

} // namespace synaptic::engine
