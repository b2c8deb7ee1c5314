#include "routing_table.h"

#include <algorithm>
#include <stdexcept>

namespace synaptic::engine {

std::uint64_t ShardRoute::versionLag(const std::vector<int> &regionOfEdge) const {
    std::uint64_t lag = 0;
    for (std::size_t e = 0; e < cachedVersion.size(); ++e) {
        const std::uint64_t ownerV = ownerVersion[std::size_t(regionOfEdge[e])];
        if (ownerV > cachedVersion[e])
            lag = std::max(lag, ownerV - cachedVersion[e]);
    }
    return lag;
}

std::uint64_t ShardRoute::minCachedVersion() const {
    return cachedVersion.empty() ? 0 : *std::min_element(cachedVersion.begin(), cachedVersion.end());
}

RoutingTable::RoutingTable(const ShardPlan &plan, const PlanTopology &topology)
    : m_regions(int(topology.edgesPerRegion.size())) {
    if (int(plan.owner.size()) != m_regions)
        throw std::invalid_argument("RoutingTable: plan has " + std::to_string(plan.owner.size()) +
                                    " regions, topology " + std::to_string(m_regions));
    for (int r = 0; r < m_regions; ++r)
        for (int e = 0; e < topology.edgesPerRegion[std::size_t(r)]; ++e)
            m_regionOfEdge.push_back(r);
    for (const auto &shard : plan.shards) {
        auto row = std::make_shared<ShardRoute>();
        row->shard = shard;
        for (int r = 0; r < m_regions; ++r)
            row->owner.push_back(plan.owner[std::size_t(r)][std::size_t(shard.id)]);
        row->ownerVersion.assign(std::size_t(m_regions), 0);
        row->cachedVersion.assign(m_regionOfEdge.size(), 0);
        row->lastSync.assign(std::size_t(m_regions), 0.0);
        m_rows.push_back(std::move(row));
    }
}

std::shared_ptr<const RoutingSnapshot> RoutingTable::snapshot() const {
    std::lock_guard lock(m_mutex);
    if (!m_cached) {
        auto snap = std::make_shared<RoutingSnapshot>();
        snap->rows = m_rows;
        snap->regionOfEdge = m_regionOfEdge;
        snap->revision = m_revision;
        m_cached = std::move(snap);
    }
    return m_cached;
}

std::size_t RoutingTable::shardCount() const {
    std::lock_guard lock(m_mutex);
    return m_rows.size();
}

void RoutingTable::checkRegion(int region) const {
    if (region < 0 || region >= m_regions)
        throw std::invalid_argument("routing table: no region " + std::to_string(region));
}

void RoutingTable::checkEdge(int edge) const {
    if (edge < 0 || std::size_t(edge) >= m_regionOfEdge.size())
        throw std::invalid_argument("routing table: no edge " + std::to_string(edge));
}

template <typename Edit>
void RoutingTable::update(int shard, Edit edit) {
    std::lock_guard lock(m_mutex);
    if (shard < 0 || std::size_t(shard) >= m_rows.size())
        throw std::invalid_argument("routing table: no shard " + std::to_string(shard));
    auto row = std::make_shared<ShardRoute>(*m_rows[std::size_t(shard)]);
    edit(*row);
    m_rows[std::size_t(shard)] = std::move(row);
    ++m_revision;
    m_cached.reset();
}

namespace {
void raise(std::uint64_t &slot, std::uint64_t version, const char *what, int shard) {
    if (version < slot)
        throw std::logic_error(std::string("routing table: ") + what + " of shard " + std::to_string(shard) +
                               " would go back from " + std::to_string(slot) + " to " + std::to_string(version));
    slot = version;
}
} // namespace

void RoutingTable::setOwner(int shard, int region, int edge) {
    update(shard, [&](ShardRoute &r) {
        checkRegion(region);
        checkEdge(edge);
        if (m_regionOfEdge[std::size_t(edge)] != region)
            throw std::invalid_argument("routing table: edge " + std::to_string(edge) + " is not in region " +
                                        std::to_string(region));
        r.owner[std::size_t(region)] = edge;
    });
}

void RoutingTable::setOwnerVersion(int shard, int region, std::uint64_t version, double now) {
    update(shard, [&](ShardRoute &r) {
        checkRegion(region);
        raise(r.ownerVersion[std::size_t(region)], version, "owner version", shard);
        r.lastSync[std::size_t(region)] = now;
    });
}

void RoutingTable::setCenterVersion(int shard, std::uint64_t version) {
    update(shard, [&](ShardRoute &r) { raise(r.centerVersion, version, "center version", shard); });
}

void RoutingTable::setCachedVersion(int shard, int edge, std::uint64_t version) {
    update(shard, [&](ShardRoute &r) {
        checkEdge(edge);
        raise(r.cachedVersion[std::size_t(edge)], version, "cached version", shard);
    });
}

void RoutingTable::setParameterDrift(int shard, double drift) {
    if (!(drift >= 0.0))
        throw std::invalid_argument("routing table: parameter drift must be a non-negative number");
    update(shard, [&](ShardRoute &r) { r.parameterDrift = drift; });
}

} // namespace synaptic::engine
