#include "flood_guard.h"

#include <algorithm>

namespace synaptic::rpc {

std::string FloodGuard::hostOf(const std::string &peer) {
    // The port follows the last ':' (an IPv6 address is bracketed).
    const auto colon = peer.rfind(':');
    const auto scheme = peer.find(':');
    if (colon == std::string::npos || colon == scheme)
        return peer;
    const auto port = peer.substr(colon + 1);
    const bool numeric = !port.empty() && std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    return numeric ? peer.substr(0, colon) : peer;
}

bool FloodGuard::allow(const std::string &peer) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_mutex);
    if (m_buckets.size() >= kMaxBuckets)
        dropRefilled(now);
    if (m_buckets.size() >= kMaxBuckets) { // all in use: the one idle longest goes
        const auto oldest = std::min_element(m_buckets.begin(), m_buckets.end(), [](const auto &a, const auto &b) {
            return a.second.last < b.second.last;
        });
        m_buckets.erase(oldest);
    }
    auto [it, fresh] = m_buckets.try_emplace(hostOf(peer), Bucket{m_burst, now});
    auto &b = it->second;
    if (!fresh) {
        b.tokens = std::min(m_burst, b.tokens + m_rate * std::chrono::duration<double>(now - b.last).count());
        b.last = now;
    }
    if (b.tokens < 1)
        return false;
    b.tokens -= 1;
    return true;
}

void FloodGuard::dropRefilled(std::chrono::steady_clock::time_point now) {
    std::erase_if(m_buckets, [&](const auto &entry) {
        return entry.second.tokens + m_rate * std::chrono::duration<double>(now - entry.second.last).count() >= m_burst;
    });
}

} // namespace synaptic::rpc
