#include "split_predictions.h"

#include "core/engine/evaluate.h"

#include <torch/csrc/autograd/grad_mode.h>

namespace synaptic::engine {

at::Tensor throughFp16(const at::Tensor &features) { return features.to(at::kHalf).to(features.scalar_type()); }

namespace {
void append(std::vector<std::uint8_t> &out, const at::Tensor &classes) {
    const auto c = classes.to(at::kCPU, at::kByte).contiguous();
    out.insert(out.end(), c.data_ptr<std::uint8_t>(), c.data_ptr<std::uint8_t>() + c.numel());
}
} // namespace

SplitPredictions predictSplit(SynapticNet &model, const TensorSet &set, ConfidenceMeasure measure, int batchSize) {
    if (batchSize <= 0)
        batchSize = evaluationBatch(set.labels.device());
    const bool wasTraining = model->is_training();
    model->eval();
    torch::NoGradGuard noGrad;
    SplitPredictions p;
    p.measure = measure;
    const std::int64_t n = set.size();
    for (std::int64_t start = 0; start < n; start += batchSize) {
        const std::int64_t end = std::min(n, start + batchSize);
        const auto images = set.inputs.slice(0, start, end);
        const EdgeOutput edge = model->forwardEdge(images);
        const auto conf = exitConfidence(edge.exitLogits, measure).to(at::kCPU).contiguous();
        p.confidence.insert(p.confidence.end(), conf.data_ptr<float>(), conf.data_ptr<float>() + conf.numel());
        append(p.exitClass, edge.exitLogits.argmax(1));
        append(p.centerClass, model->forwardCenter(throughFp16(edge.features)).argmax(1));
        append(p.fullClass, model->forwardCenter(edge.features).argmax(1));
        append(p.label, set.labels.slice(0, start, end));
    }
    model->train(wasTraining);
    return p;
}

} // namespace synaptic::engine
