#include "exit_policy.h"

#include <ATen/ATen.h>

#include <cmath>

namespace synaptic::engine {

std::optional<ConfidenceMeasure> parseConfidenceMeasure(const std::string &name) {
    if (name == "max_softmax")
        return ConfidenceMeasure::MaxSoftmax;
    if (name == "entropy")
        return ConfidenceMeasure::Entropy;
    return std::nullopt;
}

std::string confidenceMeasureName(ConfidenceMeasure measure) {
    return measure == ConfidenceMeasure::Entropy ? "entropy" : "max_softmax";
}

at::Tensor exitConfidence(const at::Tensor &logits, ConfidenceMeasure measure) {
    const auto logp = at::log_softmax(logits.to(at::kFloat), 1);
    if (measure == ConfidenceMeasure::MaxSoftmax)
        return std::get<0>(logp.max(1)).exp();
    // H = -sum p log p; a probability that underflows to 0 contributes 0
    // (p * log p -> 0), which exp(logp) * logp gives without NaN since logp
    // is finite for finite logits.
    const auto entropy = -(logp.exp() * logp).sum(1);
    const double maxEntropy = std::log(double(logits.size(1)));
    return (1.0 - entropy / maxEntropy).clamp(0.0, 1.0);
}

} // namespace synaptic::engine
