#include "ui_feed.h"

#include <algorithm>
#include <cmath>

namespace synaptic::bench {

using namespace engine;

std::vector<LayerLayout> wideModelLayout(int minShards) {
    // Rows grow with the requested shard count; a row per shard at most.
    const std::int64_t scale = std::max(1, (minShards + 2047) / 2048);
    return {
        {"conv1", LayerLayout::Kind::Conv, 128 * scale, 3 * 9 + 1 + 2, {}},
        {"conv2", LayerLayout::Kind::Conv, 256 * scale, 128 * 9 + 1 + 2, {}},
        {"conv3", LayerLayout::Kind::Conv, 512 * scale, 256 * 9 + 1 + 2, {}},
        {"fc1", LayerLayout::Kind::Linear, 1024 * scale, 2048 + 1, {}},
        {"fc2", LayerLayout::Kind::Linear, 256 * scale, 1024 + 1, {}},
        {"fc3", LayerLayout::Kind::Linear, 10, 256 + 1, {}},
    };
}

TelemetryFeed::TelemetryFeed(const ShardPlan &plan, const PlanTopology &topology, double syncSeconds)
    : m_plan(plan), m_topology(topology), m_table(plan, topology), m_syncSeconds(syncSeconds),
      m_nextSync(syncSeconds) {
    for (std::size_t r = 0; r < topology.edgesPerRegion.size(); ++r)
        for (int e = 0; e < topology.edgesPerRegion[r]; ++e)
            m_regionOfEdge.push_back(int(r));
    m_version.assign(plan.shards.size(), std::vector<std::uint64_t>(topology.edgesPerRegion.size(), 0));
}

FeedTick TelemetryFeed::tick(double dt) {
    m_now += dt;
    ++m_ticks;
    FeedTick t;
    const int regions = int(m_topology.edgesPerRegion.size());
    const std::size_t shardCount = m_plan.shards.size();
    // A tenth of the shards take an owner update this tick; the owner's region
    // caches catch up on one region's edges (rotating), as windows end.
    const int cachedRegion = int(m_ticks % std::uint64_t(regions));
    for (std::size_t s = m_ticks % 10; s < shardCount; s += 10)
        for (int r = 0; r < regions; ++r) {
            const std::uint64_t v = ++m_version[s][std::size_t(r)];
            m_table.setOwnerVersion(int(s), r, v, m_now);
            if (r == cachedRegion)
                for (int e = m_topology.firstEdgeOf(r); e < m_topology.firstEdgeOf(r) + m_topology.edgesPerRegion[std::size_t(r)]; ++e)
                    m_table.setCachedVersion(int(s), e, v);
        }
    m_samples += std::uint64_t(m_regionOfEdge.size()) * 64;
    linkCounters(dt, t.events);
    if (m_now >= m_nextMetric) {
        metrics(t.events);
        m_nextMetric += 1;
    }
    if (m_now >= m_nextSync) {
        sync(t.events);
        m_nextSync += m_syncSeconds;
    }
    if (m_now >= m_nextMove) {
        const int shard = int(m_rng() % shardCount);
        const int region = int(m_rng() % std::uint64_t(regions));
        const int edge = m_topology.firstEdgeOf(region) + int(m_rng() % std::uint64_t(m_topology.edgesPerRegion[std::size_t(region)]));
        m_table.setOwner(shard, region, edge);
        t.events.push_back(RoutingEvent{m_now, shard, region, edge, m_table.snapshot()->revision, "move"});
        m_nextMove += 2;
    }
    if (m_now >= m_nextLease) {
        const int edge = int(m_rng() % m_regionOfEdge.size());
        t.events.push_back(LeaseEvent{m_now, edge, (m_ticks / 50) % 2 ? "training" : "read_only", m_ticks});
        t.events.push_back(CommandEvent{m_now, "set_aggregation_window 2", true, "", {}});
        m_nextLease += 5;
    }
    t.routing = m_table.snapshot();
    return t;
}

void TelemetryFeed::linkCounters(double dt, std::vector<SimEvent> &out) {
    // Node ids: 0 = center, edge e = e + 1.
    for (std::size_t e = 0; e < m_regionOfEdge.size(); ++e) {
        const int node = int(e) + 1;
        const auto jitter = [&] { return 0.5 + double(m_rng() % 1000) / 1000.0; };
        out.push_back(LinkBytesEvent{m_now, dt, node, 0, std::uint64_t(2e5 * dt * jitter())});
        out.push_back(LinkBytesEvent{m_now, dt, 0, node, std::uint64_t(1e5 * dt * jitter())});
        const int r = m_regionOfEdge[e];
        const int first = m_topology.firstEdgeOf(r), n = m_topology.edgesPerRegion[std::size_t(r)];
        for (int k = 1; k <= 2 && k < n; ++k) {
            const int peer = first + (int(e) - first + k) % n;
            out.push_back(LinkBytesEvent{m_now, dt, node, peer + 1, std::uint64_t(3e6 * dt * jitter())});
        }
    }
}

void TelemetryFeed::metrics(std::vector<SimEvent> &out) {
    const double progress = 1 - std::exp(-m_now / 600);
    for (std::size_t r = 0; r < m_topology.edgesPerRegion.size(); ++r)
        out.push_back(MetricEvent{m_now, "region:r" + std::to_string(r), m_samples,
                                  2.3 - 2.0 * progress + 0.02 * double(r), 0.1 + 0.78 * progress, 0});
    out.push_back(MetricEvent{m_now, "global", m_samples, std::nan(""), 0.1 + 0.79 * progress, 0});
}

void TelemetryFeed::sync(std::vector<SimEvent> &out) {
    const int regions = int(m_topology.edgesPerRegion.size());
    for (std::size_t s = 0; s < m_plan.shards.size(); ++s) {
        const double drift = 0.01 * double(1 + (m_rng() % 100)) / 100.0;
        m_table.setCenterVersion(int(s), m_version[s][0]);
        m_table.setParameterDrift(int(s), drift);
        for (int r = 0; r < regions; ++r)
            out.push_back(DriftEvent{m_now, int(s), r, m_rng() % 4, drift});
    }
}

} // namespace synaptic::bench
