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
    if (!(spec.duplicateRate >= 0) || spec.duplicateRate > 1)
        throw std::invalid_argument("link: duplicate rate must be between 0 and 1");
    if (!(spec.jitterSeconds >= 0) || !std::isfinite(spec.jitterSeconds))
        throw std::invalid_argument("link: jitter must be a non-negative number of seconds");
}
} // namespace

Link::Link(LinkSpec spec, std::uint64_t seed) : m_spec(spec), m_rng(seed) { check(spec); }

void Link::setSpec(const LinkSpec &spec) {
    check(spec);
    m_spec = spec;
}

std::optional<double> Link::send(double now, double readyAt, std::uint64_t bytes, std::optional<double> *duplicate) {
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
    double arrival = std::max(m_busyUntil, readyAt) + m_spec.latencySeconds;
    // Faults draw only when set, so a fault-free run's stream is unchanged.
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    if (m_spec.jitterSeconds > 0)
        arrival += m_spec.jitterSeconds * unit(m_rng);
    if (m_spec.duplicateRate > 0 && unit(m_rng) < m_spec.duplicateRate && duplicate) {
        ++m_messagesDuplicated;
        *duplicate = arrival + std::max(m_spec.jitterSeconds, m_spec.latencySeconds) * unit(m_rng);
    }
    return arrival;
}

} // namespace synaptic::engine
