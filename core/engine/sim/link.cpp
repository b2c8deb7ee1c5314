#include "link.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace synaptic::engine {

namespace {
void check(const LinkSpec &spec) {
    if (!(spec.bandwidthBitsPerSecond > 0) || !std::isfinite(spec.bandwidthBitsPerSecond))
        throw std::invalid_argument("link: bandwidth must be a positive number of bits per second");
    if (!(spec.latencySeconds >= 0) || !std::isfinite(spec.latencySeconds))
        throw std::invalid_argument("link: latency must be a non-negative number of seconds");
    if (!(spec.lossRate >= 0) || spec.lossRate > 1)
        throw std::invalid_argument("link: loss rate must be between 0 and 1");
}
} // namespace

Link::Link(LinkSpec spec, std::uint64_t seed) : m_spec(spec), m_rng(seed) { check(spec); }

void Link::setSpec(const LinkSpec &spec) {
    check(spec);
    m_spec = spec;
}

std::optional<double> Link::send(double now, std::uint64_t bytes) {
    if (!m_spec.up)
        return std::nullopt;
    const double start = std::max(now, m_busyUntil);
    m_busyUntil = start + transmitSeconds(bytes, m_spec.bandwidthBitsPerSecond);
    m_bytesSent += bytes;
    ++m_messagesSent;
    // Draw for every message, lossy or not, so changing the loss rate live
    // does not shift the random stream of later messages.
    const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(m_rng);
    if (draw < m_spec.lossRate) {
        ++m_messagesLost;
        return std::nullopt;
    }
    return m_busyUntil + m_spec.latencySeconds;
}

} // namespace synaptic::engine
