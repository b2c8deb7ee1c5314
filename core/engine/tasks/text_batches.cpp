#include "text_batches.h"

#include "langid_model.h"

#include <ATen/ops/from_blob.h>
#include <torch/types.h>

namespace synaptic::engine {

EncodedTexts encodeTexts(const std::vector<data::TextSample> &texts, const data::NgramOptions &options) {
    EncodedTexts out;
    out.grams.reserve(texts.size());
    out.labels.reserve(texts.size());
    for (const auto &t : texts) {
        out.grams.push_back(data::hashedNgrams(t.text, options));
        out.labels.push_back(t.label);
    }
    return out;
}

TextBatch makeBatch(const EncodedTexts &texts, const std::vector<std::size_t> &which, const std::string &device) {
    std::vector<std::int64_t> indices;
    std::vector<std::int64_t> offsets;
    std::vector<std::int64_t> labels;
    offsets.reserve(which.size());
    labels.reserve(which.size());
    for (auto i : which) {
        offsets.push_back(std::int64_t(indices.size()));
        indices.insert(indices.end(), texts.grams[i].begin(), texts.grams[i].end());
        labels.push_back(texts.labels[i]);
    }
    auto opts = torch::TensorOptions().dtype(torch::kInt64);
    auto toTensor = [&](std::vector<std::int64_t> &v) {
        return torch::from_blob(v.data(), {std::int64_t(v.size())}, opts).clone().to(torch::Device(device));
    };
    return {toTensor(indices), toTensor(offsets), toTensor(labels)};
}

LangIdScore scorePredictions(const std::vector<int> &predicted, const std::vector<int> &labels, int classes) {
    LangIdScore score;
    score.perClass.assign(std::size_t(classes), 0.0);
    score.counts.assign(std::size_t(classes), 0);
    std::size_t right = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto label = std::size_t(labels[i]);
        ++score.counts[label];
        if (predicted[i] == labels[i]) {
            ++right;
            score.perClass[label] += 1.0;
        }
    }
    int present = 0;
    for (std::size_t c = 0; c < score.perClass.size(); ++c) {
        if (score.counts[c] == 0)
            continue;
        score.perClass[c] /= double(score.counts[c]);
        score.macroAccuracy += score.perClass[c];
        ++present;
    }
    score.macroAccuracy = present > 0 ? score.macroAccuracy / present : 0.0;
    score.accuracy = labels.empty() ? 0.0 : double(right) / double(labels.size());
    return score;
}

LangIdScore evaluateLangId(LangIdNetImpl &model, const EncodedTexts &texts, int classes, const std::string &device) {
    const bool wasTraining = model.is_training();
    model.eval();
    const auto score = evaluateTexts(
        [&model](const TextBatch &batch) { return model.forward(batch.indices, batch.offsets); }, texts, classes,
        device);
    model.train(wasTraining);
    return score;
}

LangIdScore evaluateTexts(const std::function<at::Tensor(const TextBatch &)> &logits, const EncodedTexts &texts,
                          int classes, const std::string &device) {
    torch::NoGradGuard noGrad;
    std::vector<int> predicted;
    predicted.reserve(texts.size());
    constexpr std::size_t kBatch = 1024;
    for (std::size_t from = 0; from < texts.size(); from += kBatch) {
        std::vector<std::size_t> which;
        for (std::size_t i = from; i < std::min(texts.size(), from + kBatch); ++i)
            which.push_back(i);
        const auto best = logits(makeBatch(texts, which, device)).argmax(1).to(torch::kCPU);
        const auto *p = best.data_ptr<std::int64_t>();
        for (std::int64_t k = 0; k < best.numel(); ++k)
            predicted.push_back(int(p[k]));
    }
    return scorePredictions(predicted, texts.labels, classes);
}

} // namespace synaptic::engine
