#include "langid_task.h"

#include "text_batches.h"

#include "core/data/fortune_corpus.h"

#include <torch/csrc/autograd/grad_mode.h>
#include <torch/nn/functional/loss.h>
#include <torch/types.h>

#include <cmath>
#include <random>

namespace synaptic::engine {

namespace {

class LangIdTaskModel final : public TaskModel {
public:
    explicit LangIdTaskModel(const LangIdShape &shape) : m_net(shape, /*sparse=*/false) {}

    torch::nn::Module &module() override { return *m_net; }

    Loss trainingLoss(const TensorSet &batch, double) override {
        m_net->train();
        const auto loss = torch::nn::functional::cross_entropy(logits(batch), batch.labels);
        return {loss, loss.detach()};
    }

    Accuracy evaluate(const TensorSet &set) override {
        const bool wasTraining = m_net->is_training();
        m_net->eval();
        torch::NoGradGuard noGrad;
        std::int64_t right = 0;
        constexpr std::int64_t kBatch = 1000;
        for (std::int64_t start = 0; start < set.size(); start += kBatch) {
            const auto part = sliceSamples(set, start, std::min(set.size(), start + kBatch));
            right += logits(part).argmax(1).eq(part.labels).sum().item<std::int64_t>();
        }
        m_net->train(wasTraining);
        const double acc = set.size() ? double(right) / double(set.size()) : 0.0;
        return {acc, std::nan("")};
    }

private:
    // EmbeddingBag takes each text's first row; the set keeps one more (the end).
    at::Tensor logits(const TensorSet &set) {
        return m_net->forward(set.inputs, set.offsets.slice(0, 0, set.size()).to(set.inputs.device()));
    }

    LangIdNet m_net;
};

TensorSet toRagged(const EncodedTexts &texts, const std::string &device, std::mt19937_64 &rng) {
    std::vector<std::size_t> order(texts.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    // Own Fisher-Yates: std::shuffle's order is not specified across libraries.
    for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[std::size_t(rng() % i)]);
    std::vector<std::int64_t> rows, offsets{0}, labels;
    for (auto i : order) {
        rows.insert(rows.end(), texts.grams[i].begin(), texts.grams[i].end());
        offsets.push_back(std::int64_t(rows.size()));
        labels.push_back(texts.labels[i]);
    }
    const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    auto tensor = [&](std::vector<std::int64_t> &v) {
        return torch::from_blob(v.data(), {std::int64_t(v.size())}, i64).clone();
    };
    TensorSet set;
    set.inputs = tensor(rows).to(torch::Device(device));
    set.offsets = tensor(offsets);
    set.labels = tensor(labels).to(torch::Device(device));
    return set;
}

} // namespace

std::unique_ptr<TaskModel> makeLangIdTaskModel(const LangIdShape &shape) {
    return std::make_unique<LangIdTaskModel>(shape);
}

TaskData loadLangIdData(const std::string &dir, const std::string &device, const LangIdDataOptions &options) {
    data::FortuneOptions fo;
    fo.maxPerLanguage = options.maxPerLanguage;
    const auto corpus = data::loadFortuneCorpus(data::resolveFortuneDir(dir), fo);
    data::NgramOptions ngrams;
    ngrams.buckets = options.buckets;
    ngrams.maxN = options.ngramMax;
    std::mt19937_64 rng(1);
    TaskData d;
    d.train = toRagged(encodeTexts(corpus.train, ngrams), device, rng);
    d.test = toRagged(encodeTexts(corpus.test, ngrams), device, rng);
    const auto labels = d.train.labels.to(torch::kCPU).contiguous();
    const auto *l = labels.data_ptr<std::int64_t>();
    d.trainLabels.assign(l, l + labels.numel());
    return d;
}

double langIdTrainFlopsPerSample(const LangIdShape &shape) {
    // A fortune cut at 400 code points has ~250 on average: ~750 1..3-grams.
    constexpr std::int64_t kTypicalNgrams = 750;
    return 6.0 * double(shape.forwardMacs(kTypicalNgrams));
}

} // namespace synaptic::engine
