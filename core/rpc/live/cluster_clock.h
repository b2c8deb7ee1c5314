#pragma once

#include <atomic>
#include <chrono>

namespace synaptic::rpc {

// The live cluster's clock: seconds since the center started, on this
// host's steady clock plus an offset. Lease expiries, sentAt and writtenAt
// stamps are in this clock, so nodes in separate processes compare them as
// the simulator's nodes compare virtual seconds. The center starts it at 0;
// an edge sets its offset from the center's time in the join reply, less
// half the join's round trip (NTP's estimate; off by at most half the
// round trip's asymmetry). Thread-safe.
class ClusterClock {
public:
    using Steady = std::chrono::steady_clock;

    ClusterClock() : m_origin(Steady::now()) {}

    double now() const { return toCluster(Steady::now()); }
    double toCluster(Steady::time_point t) const {
        return std::chrono::duration<double>(t - m_origin).count() + m_offset.load(std::memory_order_relaxed);
    }
    Steady::time_point toSteady(double clusterSeconds) const {
        const double local = clusterSeconds - m_offset.load(std::memory_order_relaxed);
        return m_origin + std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(local));
    }
    // `centerTime` was the center's clock at the middle of a round trip
    // that ended at `received` and took `roundTrip` seconds.
    void syncTo(double centerTime, Steady::time_point received, double roundTrip) {
        const double local = std::chrono::duration<double>(received - m_origin).count() - roundTrip / 2;
        m_offset.store(centerTime - local, std::memory_order_relaxed);
    }

private:
    Steady::time_point m_origin;
    std::atomic<double> m_offset{0};
};

} // namespace synaptic::rpc
