#pragma once

#include "shard_planner.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace synaptic::engine {

// One row of the synapse routing table (DESIGN.md §1): where a shard lives
// and how current each copy is. Versions are per-shard update counters.
struct ShardRoute {
    ShardSpec shard;
    std::vector<int> owner;                   // per region: global edge index
    std::vector<std::uint64_t> ownerVersion;  // per region: version at the owner
    std::uint64_t centerVersion = 0;
    std::vector<std::uint64_t> cachedVersion; // per edge: version it caches
    std::vector<double> lastSync;             // per region: virtual seconds of last center sync
    double parameterDrift = 0;                // ||theta_region - theta_center|| / ||theta_center||, worst region

    // Worst lag of any edge's cache behind its region owner's version.
    std::uint64_t versionLag(const std::vector<int> &regionOfEdge) const;
    std::uint64_t minCachedVersion() const;
};

// An immutable view of the whole table. Rows are shared with the live table
// until it changes them (copy-on-write per row), so a reader on another thread
// (GUI, recorder) never sees a half-applied update, a mutation costs one row
// copy, and a snapshot costs one pointer per row, only when something changed
// since the last one.
struct RoutingSnapshot {
    std::vector<std::shared_ptr<const ShardRoute>> rows;
    std::vector<int> regionOfEdge;
    std::uint64_t revision = 0; // bumped by every change
};

// The single source of truth for where shards live. Written by the engine
// thread; snapshot() may be called from any thread.
class RoutingTable {
public:
    RoutingTable(const ShardPlan &plan, const PlanTopology &topology);

    std::shared_ptr<const RoutingSnapshot> snapshot() const;
    std::size_t shardCount() const;

    // Mutations throw std::invalid_argument for an unknown shard, region or
    // edge, and std::logic_error if a version would go backwards: versions
    // only ever increase, which is what makes stale updates detectable.
    void setOwner(int shard, int region, int edge);
    void setOwnerVersion(int shard, int region, std::uint64_t version, double now);
    void setCenterVersion(int shard, std::uint64_t version);
    void setCachedVersion(int shard, int edge, std::uint64_t version);
    void setParameterDrift(int shard, double drift);

private:
    // Clone the row, let `edit` change the clone (it may throw: nothing is
    // published then), publish it. Called with m_mutex not held.
    template <typename Edit>
    void update(int shard, Edit edit);
    void checkRegion(int region) const; // m_mutex held
    void checkEdge(int edge) const;     // m_mutex held

    mutable std::mutex m_mutex;
    std::vector<std::shared_ptr<const ShardRoute>> m_rows; // guarded by m_mutex
    std::vector<int> m_regionOfEdge;                        // fixed after construction
    int m_regions = 0;                                      // fixed after construction
    std::uint64_t m_revision = 0;                           // guarded by m_mutex
    mutable std::shared_ptr<const RoutingSnapshot> m_cached; // null after a change
};

} // namespace synaptic::engine
