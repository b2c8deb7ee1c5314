#pragma once

#include <optional>
#include <string>

namespace at {
class Tensor;
}

namespace synaptic::engine {

// How the edge scores its exit head's answer (issue 6 §2). Both give a
// confidence in [0, 1], so one threshold scale serves either:
//   max_softmax: the largest class probability;
//   entropy:     1 - H(p) / ln(classes), 1 for a one-hot answer, 0 for uniform.
enum class ConfidenceMeasure { MaxSoftmax, Entropy };

std::optional<ConfidenceMeasure> parseConfidenceMeasure(const std::string &name);
std::string confidenceMeasureName(ConfidenceMeasure measure);

// Confidence per row of `logits` [N, C], as float [N] on the logits' device.
at::Tensor exitConfidence(const at::Tensor &logits, ConfidenceMeasure measure);

// The routing decision. A threshold of 1 or more sends everything to the
// center even when a float softmax saturates to exactly 1.0; 0 or less keeps
// everything at the edge.
inline bool answersAtEdge(double confidence, double threshold) {
    return threshold < 1.0 && confidence >= threshold;
}

} // namespace synaptic::engine
