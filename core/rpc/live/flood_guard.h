#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace synaptic::rpc {

// A token bucket per caller (issue 13 §8 "a flood of calls"): `rate`
// messages per second with bursts of `burst`. A caller over its budget is
// answered RESOURCE_EXHAUSTED and its message is not queued for the node.
// Any thread.
class FloodGuard {
public:
    FloodGuard(double rate, double burst) : m_rate(rate), m_burst(burst) {}

    bool allow(const std::string &caller) {
        const auto now = std::chrono::steady_clock::now();
        std::lock_guard lock(m_mutex);
        auto [it, fresh] = m_buckets.try_emplace(caller, Bucket{m_burst, now});
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

private:
    struct Bucket {
        double tokens;
        std::chrono::steady_clock::time_point last;
    };
    const double m_rate;
    const double m_burst;
    std::mutex m_mutex;
    std::map<std::string, Bucket> m_buckets;
};

} // namespace synaptic::rpc
