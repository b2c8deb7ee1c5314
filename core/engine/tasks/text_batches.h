#pragma once

#include "core/data/char_ngrams.h"
#include "core/data/fortune_corpus.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace synaptic::engine {

class LangIdNetImpl;

// A text set hashed once into n-gram rows, so training and evaluation never
// hash again. Engine thread.
struct EncodedTexts {
    std::vector<std::vector<std::int64_t>> grams; // per text
    std::vector<int> labels;
    std::size_t size() const { return labels.size(); }
};

EncodedTexts encodeTexts(const std::vector<data::TextSample> &texts, const data::NgramOptions &options);

struct TextBatch {
    at::Tensor indices; // int64, every text's rows concatenated
    at::Tensor offsets; // int64 [texts]
    at::Tensor labels;  // int64 [texts]
};

// The texts at `which` as one EmbeddingBag batch on `device`.
TextBatch makeBatch(const EncodedTexts &texts, const std::vector<std::size_t> &which,
                    const std::string &device = "cpu");

struct LangIdScore {
    double accuracy = 0;             // over all texts
    double macroAccuracy = 0;        // mean of the per-class accuracies
    std::vector<double> perClass;    // accuracy per label
    std::vector<std::size_t> counts; // texts per label
};

// Accuracy of `model` on `texts` (eval mode, no gradients), over `classes` labels.
LangIdScore evaluateLangId(LangIdNetImpl &model, const EncodedTexts &texts, int classes,
                           const std::string &device = "cpu");
// The same for any computation of the class scores [texts, classes] of a
// batch (an edge that holds only some of the table's rows computes them
// itself), called without gradients.
LangIdScore evaluateTexts(const std::function<at::Tensor(const TextBatch &)> &logits, const EncodedTexts &texts,
                          int classes, const std::string &device = "cpu");
// The same from predicted labels (shared with the baseline).
LangIdScore scorePredictions(const std::vector<int> &predicted, const std::vector<int> &labels, int classes);

} // namespace synaptic::engine
