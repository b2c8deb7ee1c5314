#pragma once

#include "text_batches.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>

namespace synaptic::engine {

class LangIdNetImpl;

// One batch's gradients in the form an edge ships them: the embedding table's
// as the rows the batch touched and their gradient rows (sparse), the
// classifier's dense (weight rows then bias, flattened).
struct LangIdGradients {
    at::Tensor rows;           // int64 [k], sorted, unique
    at::Tensor rowGrads;       // float [k, dim]
    at::Tensor classifierGrad; // float [classes * (dim + 1)]
    double loss = 0;
};

// Forward and backward of one batch (cross-entropy), without changing the model.
LangIdGradients langIdGradients(LangIdNetImpl &model, const TextBatch &batch);

// Plain SGD with the given gradients: only the touched rows of the table move.
void applySgd(LangIdNetImpl &model, const LangIdGradients &g, double lr);

struct LangIdTrainOptions {
    int epochs = 5;
    int batch = 32;
    // fastText's schedule: SGD whose rate falls linearly to zero over the run.
    double lr = 20.0; // per-row steps are small: the mean over a text's ~400 n-grams
    std::uint64_t seed = 1;
    // Asked between batches: true ends training where it is (an app closing
    // its window while the model warms up must not wait for the epochs).
    std::function<bool()> cancelled;
};

// Trains `model` on `train` in one process (the single-node reference the
// distributed runs are compared with). `progress` gets (epoch, mean loss).
void trainLangId(LangIdNetImpl &model, const EncodedTexts &train, const LangIdTrainOptions &options,
                 const std::function<void(int, double)> &progress = {});

} // namespace synaptic::engine
