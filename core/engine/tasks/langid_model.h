#pragma once

// LibTorch nn headers: include only from .cpp files that need the tensors.
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>

namespace synaptic::engine {

struct LangIdShape {
    std::int64_t buckets = std::int64_t(1) << 16; // rows of the n-gram table
    std::int64_t dim = 32;
    std::int64_t classes = 12;
    // Multiply-adds of one text of `ngrams` n-grams through the model forward.
    std::int64_t forwardMacs(std::int64_t ngrams) const { return ngrams * dim + dim * classes; }
};

// A fastText-style language classifier (Joulin et al., "Bag of Tricks"): the
// mean of a text's hashed character n-gram embeddings, then one linear layer.
// Almost every parameter is in the embedding table (2^20 x 32 = 33.6M in the
// hot-update scenario, 2^16 x 32 = 2.1M in the registered task the training
// strategies run, against 396 in the classifier), and a batch touches only the rows of its n-grams:
// the table's gradient is sparse (`sparse` = true gives it as a sparse tensor,
// which is what an edge ships as a row delta).
class LangIdNetImpl : public torch::nn::Module {
public:
    explicit LangIdNetImpl(const LangIdShape &shape = {}, bool sparse = true);

    // `indices`: every text's n-gram rows, concatenated (int64); `offsets`:
    // where each text's rows start. Returns class scores [texts, classes].
    torch::Tensor forward(const torch::Tensor &indices, const torch::Tensor &offsets);

    const LangIdShape &shape() const { return m_shape; }
    std::int64_t forwardMacs(std::int64_t ngrams) const { return m_shape.forwardMacs(ngrams); }

    torch::nn::EmbeddingBag embedding{nullptr};
    torch::nn::Linear classifier{nullptr};

private:
    LangIdShape m_shape;
};
TORCH_MODULE(LangIdNet);

} // namespace synaptic::engine
