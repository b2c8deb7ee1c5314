#include "delta_publisher.h"

#include <ATen/ATen.h>

namespace synaptic::engine {

void DeltaPublisher::reset(const at::Tensor &values, std::uint64_t version) {
    m_published = values.clone();
    m_version = version;
}

Coded DeltaPublisher::publish(at::Tensor &values, std::uint64_t newVersion, const CodecSpec &spec) {
    if (empty())
        m_published = at::zeros_like(values);
    Coded delta = encode(values - m_published, spec);
    applyDelta(m_published, delta);
    m_version = newVersion;
    if (spec.codec == Codec::Fp32)
        values.copy_(m_published);
    return delta;
}

void applyDelta(at::Tensor &copy, const Coded &delta) {
    copy.add_(decode(delta));
}

} // namespace synaptic::engine
