#pragma once

#include "exit_policy.h"

#include "core/engine/model.h"
#include "core/engine/tensor_data.h"

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// What the split model answers for every image of a set, computed once per
// model (batched, eval mode, no gradients) so the serving simulation and the
// threshold sweep only look answers up. The model does not change while it
// serves; a new edge image means new predictions.
struct SplitPredictions {
    ConfidenceMeasure measure = ConfidenceMeasure::MaxSoftmax;
    std::vector<float> confidence;          // the exit head's, by `measure`
    std::vector<std::uint8_t> exitClass;    // the edge's answer
    std::vector<std::uint8_t> centerClass;  // the center half on the fp16 features the edge sends
    std::vector<std::uint8_t> fullClass;    // the whole model on the raw image (center-only serving)
    std::vector<std::uint8_t> label;

    std::int64_t size() const { return std::int64_t(label.size()); }
};

// batchSize 0: evaluationBatch() for the set's device (core/engine/evaluate.h).
SplitPredictions predictSplit(SynapticNet &model, const TensorSet &images, ConfidenceMeasure measure,
                              int batchSize = 0);

// Features as they travel: rounded to fp16 and back to the model's dtype.
at::Tensor throughFp16(const at::Tensor &features);

} // namespace synaptic::engine
