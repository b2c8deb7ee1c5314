#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace synaptic::rpc {

// A token bucket per calling host (issue 13 §8 "a flood of calls"): `rate`
// calls per second with bursts of `burst`. A caller over its budget is
// answered RESOURCE_EXHAUSTED and its message is not queued for the node.
// Buckets are keyed by the caller's address without its port, so opening
// new connections does not buy a fresh budget; processes on one host share
// it. The map stays bounded: a bucket idle long enough to have refilled is
// the same as none, and such buckets are dropped once there are many; if
// none has refilled, the one idle longest is dropped.
// Any thread.
class FloodGuard {
public:
    FloodGuard(double rate, double burst) : m_rate(rate), m_burst(burst) {}

    // `peer` as gRPC names it ("ipv4:10.0.0.5:43120", "ipv6:[::1]:5000").
    bool allow(const std::string &peer);

    // "ipv4:10.0.0.5:43120" -> "ipv4:10.0.0.5"; names without a port as they are.
    static std::string hostOf(const std::string &peer);

    static constexpr std::size_t kMaxBuckets = 4096;
    std::size_t buckets() const {
        std::lock_guard lock(m_mutex);
        return m_buckets.size();
    }

private:
    struct Bucket {
        double tokens;
        std::chrono::steady_clock::time_point last;
    };
    void dropRefilled(std::chrono::steady_clock::time_point now); // mutex held

    const double m_rate;
    const double m_burst;
    mutable std::mutex m_mutex;
    std::map<std::string, Bucket> m_buckets;
};

} // namespace synaptic::rpc
