#include "error_feedback.h"

#include <ATen/ATen.h>

namespace synaptic::engine {

Coded ErrorFeedback::compress(const at::Tensor &update, const CodecSpec &spec) {
    const bool owed = m_residual.defined() && m_residual.numel() == update.numel();
    const at::Tensor corrected = owed ? update + m_residual : update;
    Coded coded = encode(corrected, spec);
    if (spec.codec == Codec::Fp32)
        m_residual = at::Tensor();
    else
        m_residual = corrected - decode(coded);
    return coded;
}

} // namespace synaptic::engine
