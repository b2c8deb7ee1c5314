#include "langid_training.h"

#include "langid_model.h"

#include <torch/nn/functional/loss.h>
#include <torch/types.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace synaptic::engine {

LangIdGradients langIdGradients(LangIdNetImpl &model, const TextBatch &batch) {
    model.zero_grad();
    const auto logits = model.forward(batch.indices, batch.offsets);
    const auto loss = torch::nn::functional::cross_entropy(logits, batch.labels);
    loss.backward();

    LangIdGradients g;
    g.loss = loss.item<double>();
    auto tableGrad = model.embedding->weight.grad();
    if (tableGrad.is_sparse()) {
        tableGrad = tableGrad.coalesce();
        g.rows = tableGrad.indices().select(0, 0).clone();
        g.rowGrads = tableGrad.values().clone();
    } else {
        // A dense table (sparse = false): the touched rows are the batch's.
        g.rows = std::get<0>(at::_unique(batch.indices, /*sorted=*/true));
        g.rowGrads = tableGrad.index_select(0, g.rows);
    }
    g.classifierGrad =
        torch::cat({model.classifier->weight.grad().flatten(), model.classifier->bias.grad().flatten()});
    return g;
}

void applySgd(LangIdNetImpl &model, const LangIdGradients &g, double lr) {
    torch::NoGradGuard noGrad;
    model.embedding->weight.index_add_(0, g.rows, g.rowGrads, -lr);
    const auto weightSize = model.classifier->weight.numel();
    model.classifier->weight.add_(g.classifierGrad.narrow(0, 0, weightSize).view_as(model.classifier->weight), -lr);
    model.classifier->bias.add_(g.classifierGrad.narrow(0, weightSize, model.classifier->bias.numel()), -lr);
}

void trainLangId(LangIdNetImpl &model, const EncodedTexts &train, const LangIdTrainOptions &options,
                 const std::function<void(int, double)> &progress) {
    model.train();
    std::mt19937_64 rng(options.seed);
    std::vector<std::size_t> order(train.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    const std::size_t batch = std::size_t(std::max(1, options.batch));
    const std::size_t stepsPerEpoch = (train.size() + batch - 1) / batch;
    const double totalSteps = double(stepsPerEpoch) * options.epochs;
    const auto device = model.embedding->weight.device().str();
    std::size_t step = 0;
    for (int epoch = 0; epoch < options.epochs; ++epoch) {
        std::shuffle(order.begin(), order.end(), rng);
        double lossSum = 0;
        for (std::size_t from = 0; from < order.size(); from += batch) {
            if (options.cancelled && options.cancelled())
                return;
            const std::vector<std::size_t> which(order.begin() + std::ptrdiff_t(from),
                                                 order.begin() + std::ptrdiff_t(std::min(order.size(), from + batch)));
            const auto g = langIdGradients(model, makeBatch(train, which, device));
            lossSum += g.loss;
            applySgd(model, g, options.lr * (1.0 - double(step++) / totalSteps));
        }
        if (progress)
            progress(epoch + 1, lossSum / double(stepsPerEpoch));
    }
}

} // namespace synaptic::engine
