#include "langid_model.h"

#include <torch/nn/init.h>

namespace synaptic::engine {

// Registration order is the layout order (layoutOf): the table, then the head.
LangIdNetImpl::LangIdNetImpl(const LangIdShape &shape, bool sparse) : m_shape(shape) {
    embedding = register_module(
        "embedding", torch::nn::EmbeddingBag(torch::nn::EmbeddingBagOptions(shape.buckets, shape.dim)
                                                 .mode(torch::kMean)
                                                 .sparse(sparse)));
    // fastText's initialisation: uniform in +-1/dim, small enough that the
    // mean over a text's n-grams starts near zero.
    torch::NoGradGuard noGrad;
    embedding->weight.uniform_(-1.0 / double(shape.dim), 1.0 / double(shape.dim));
    classifier = register_module("classifier", torch::nn::Linear(shape.dim, shape.classes));
}

torch::Tensor LangIdNetImpl::forward(const torch::Tensor &indices, const torch::Tensor &offsets) {
    return classifier->forward(embedding->forward(indices, offsets));
}

} // namespace synaptic::engine
