#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace synaptic::engine {

// Adam's state for one shard, kept by the shard's owner (DESIGN.md §1) and
// moved with the shard on a repartition, so the optimizer continues exactly
// where it was instead of restarting its moment estimates.
struct AdamState {
    at::Tensor m;          // first moment
    at::Tensor v;          // second moment
    std::int64_t step = 0;
};

struct AdamOptions {
    double lr = 3e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
};

// One Adam update of `values` (in place) with `grad`, the same arithmetic as
// torch::optim::Adam without weight decay. State tensors are created on first use.
// What the compute model charges for optimizer work (issue 14 §3), in
// FLOPs per parameter: Adam's moments, bias corrections, square root and
// division; the outer step's momentum and update. Summing n tensors into
// one costs n FLOPs per parameter on top.
inline constexpr double kAdamFlopsPerParameter = 12;
inline constexpr double kOuterFlopsPerParameter = 6;

void adamStep(at::Tensor &values, const at::Tensor &grad, AdamState &state, const AdamOptions &options);

// The center's outer optimizer (DiLoCo): the regions' mean delta is the
// negated outer gradient. "nesterov": Nesterov momentum SGD with the outer
// learning rate; "average": the new global copy is the plain mean of the
// regions (lr 1, no momentum).
class OuterOptimizer {
public:
    OuterOptimizer(std::string kind, double lr, double momentum);
    // global += update(meanDelta); momentum is per call site (one per shard or model).
    void step(at::Tensor &global, const at::Tensor &meanDelta, at::Tensor &momentum) const;
    void setParameters(std::string kind, double lr, double momentum);

private:
    std::string m_kind;
    double m_lr;
    double m_momentum;
};

} // namespace synaptic::engine
