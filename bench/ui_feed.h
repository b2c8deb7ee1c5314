#pragma once

#include "core/engine/sim/sim_events.h"
#include "core/engine/synapse/routing_table.h"

#include <memory>
#include <random>
#include <vector>

namespace synaptic::bench {

// One engine tick as the GUI receives it: the events since the last tick
// and the routing table after them.
struct FeedTick {
    std::vector<engine::SimEvent> events;
    std::shared_ptr<const engine::RoutingSnapshot> routing;
};

// Telemetry of a large cluster at the engine's real event shapes and rates,
// for measuring the GUI without the cost of training 64 edges on a laptop:
// a real RoutingTable (copy-on-write rows) whose owner and cached versions
// advance every tick for a tenth of the shards, link counters for every
// edge↔center link and two intra-region peers per edge, metrics per region
// every virtual second, a center sync's drift rows (shards × regions) every
// `syncSeconds`, a shard move every 2 s, and a lease change every 5 s.
class TelemetryFeed {
public:
    TelemetryFeed(const engine::ShardPlan &plan, const engine::PlanTopology &topology, double syncSeconds);

    // Advances the virtual clock by `dt` and returns what happened.
    FeedTick tick(double dt);
    double now() const { return m_now; }
    void setSyncSeconds(double s) { m_syncSeconds = s; m_nextSync = m_now + s; }
    std::size_t shards() const { return m_plan.shards.size(); }

private:
    void linkCounters(double dt, std::vector<engine::SimEvent> &out);
    void metrics(std::vector<engine::SimEvent> &out);
    void sync(std::vector<engine::SimEvent> &out);

    engine::ShardPlan m_plan;
    engine::PlanTopology m_topology;
    std::vector<int> m_regionOfEdge;
    engine::RoutingTable m_table;
    std::vector<std::vector<std::uint64_t>> m_version; // [shard][region]
    double m_syncSeconds;
    double m_now = 0;
    std::uint64_t m_ticks = 0;
    std::uint64_t m_samples = 0;
    double m_nextMetric = 1, m_nextSync = 0, m_nextMove = 2, m_nextLease = 5;
    std::mt19937_64 m_rng{7};
};

// The layer layout of a model wide enough for `minShards` row-range shards
// (the Fashion-MNIST net has 244 rows, so at most 244 shards): conv and
// fully connected layers as the planner sees them.
std::vector<engine::LayerLayout> wideModelLayout(int minShards);

} // namespace synaptic::bench
