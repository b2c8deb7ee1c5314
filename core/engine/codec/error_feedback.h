#pragma once

#include "codec.h"

#include <ATen/core/Tensor.h>

namespace synaptic::engine {

// Error feedback for a lossy codec (Deep Gradient Compression, §3): what a
// compressed update left out is added to the next update instead of being
// lost, so over any number of sends the sum of what arrived plus the
// residual equals the sum of the true updates (up to fp32 rounding). One
// per shard and traffic class; the residual is state that moves with the
// shard on a handoff. A lossless codec keeps no residual.
class ErrorFeedback {
public:
    Coded compress(const at::Tensor &update, const CodecSpec &spec);

    // Empty (undefined) when nothing is owed.
    const at::Tensor &residual() const { return m_residual; }
    void setResidual(at::Tensor residual) { m_residual = std::move(residual); }

private:
    at::Tensor m_residual;
};

} // namespace synaptic::engine
