#include "message_guard.h"

#include "core/engine/sim/node_report.h"

#include <algorithm>
#include <cmath>

namespace synaptic::rpc {

namespace e = synaptic::engine;
using K = e::MessageKind;

namespace {
constexpr std::size_t kMaxContributionIds = 1u << 16;
// Aggregation windows one gradient may claim to span: an edge holds a slow
// owner's shards for at most a second (about 125 windows of 8 ms on the
// default), so this only refuses nonsense; owners cap the weight further.
constexpr std::uint32_t kMaxWindowsPerItem = 4096;

bool fromCenter(K k) { return k == K::LeaseGrant || k == K::CenterValues || k == K::FullValues || k == K::HubPull; }
bool toCenter(K k) {
    return k == K::Heartbeat || k == K::CenterDelta || k == K::OwnerAnnounce || k == K::FullGradient ||
           k == K::LocalDelta || k == K::HubCopy;
}
// Kinds a shard's hub takes (CenterDelta) or sends (CenterValues) in the
// center's place under hub merges.
bool hubMayStandIn(K k) { return k == K::CenterDelta || k == K::CenterValues; }
// Kinds that carry shard values a receiver keeps: older ones are stale.
bool carriesValues(K k) { return k == K::Values || k == K::CenterValues; }
// Kinds whose tensor is the whole model.
bool wholeModel(K k) {
    return k == K::FullGradient || k == K::FullValues || k == K::LocalDelta || k == K::GossipParams;
}
} // namespace

MessageGuard::MessageGuard(int self, const e::ClusterShape &shape, const e::ModelSetup &model,
                           std::vector<int> hubOfShard)
    : m_self(self), m_shape(shape), m_hubOfShard(std::move(hubOfShard)) {
    for (const auto &s : model.plan.shards)
        m_shardSizes.push_back(s.parameters);
    m_parameters = model.initialValues.numel();
    m_buffers = model.initialBuffers.numel();
}

std::string MessageGuard::checkItem(const e::Message &m, const e::ShardItem &item) const {
    if (item.shard < 0 || std::size_t(item.shard) >= m_shardSizes.size())
        return "unknown shard " + std::to_string(item.shard);
    const auto size = m_shardSizes[std::size_t(item.shard)];
    auto sized = [&](const at::Tensor &t, const char *what) -> std::string {
        if (!t.defined())
            return "";
        if (t.scalar_type() != at::kFloat)
            return std::string("shard ") + std::to_string(item.shard) + " " + what + ": dtype must be float32";
        if (t.dim() != 1)
            return std::string("shard ") + std::to_string(item.shard) + " " + what + ": a " +
                   std::to_string(t.dim()) + "-dimensional tensor for a shard of " + std::to_string(size) + " values";
        if (t.numel() != size)
            return std::string("shard ") + std::to_string(item.shard) + " " + what + ": " +
                   std::to_string(t.numel()) + " values for a shard of " + std::to_string(size);
        return "";
    };
    for (const auto &[t, what] : {std::pair{&item.data, "data"}, std::pair{&item.base, "base"},
                                  std::pair{&item.sentValues, "sent values"}, std::pair{&item.optimizer.m, "adam m"},
                                  std::pair{&item.optimizer.v, "adam v"}, std::pair{&item.residual, "residual"},
                                  std::pair{&item.published, "published copy"}})
        if (auto why = sized(*t, what); !why.empty())
            return why;
    const bool needsData = m.kind == K::Gradients || m.kind == K::Values || m.kind == K::CenterDelta ||
                           m.kind == K::CenterValues || m.kind == K::Handoff || m.kind == K::HubCopy;
    if (needsData && !item.data.defined())
        return "shard " + std::to_string(item.shard) + " carries no data";
    if (item.contributionIds.size() > kMaxContributionIds)
        return "too many contribution ids";
    if (item.windowsSinceSync < 0)
        return "shard " + std::to_string(item.shard) + " counts " + std::to_string(item.windowsSinceSync) +
               " windows since its center sync";
    if (item.windows > kMaxWindowsPerItem)
        return "shard " + std::to_string(item.shard) + " claims " + std::to_string(item.windows) +
               " aggregation windows (at most " + std::to_string(kMaxWindowsPerItem) + ")";
    // A window gradient's ids are its origin edge's (a forwarded one keeps
    // its origin): an id naming another edge would be booked in the ledger
    // as that edge's, and one naming no edge would make the center drop
    // the owner's whole report of the merge it is in.
    if (m.kind == K::Gradients)
        for (const auto id : item.contributionIds)
            if (e::contributionEdge(id) != m.origin)
                return "shard " + std::to_string(item.shard) + " carries a contribution id of edge " +
                       std::to_string(e::contributionEdge(id)) + " in a gradient from edge " + std::to_string(m.origin);
    return "";
}

std::string MessageGuard::checkShape(const e::Message &m) const {
    const int nodes = m_shape.edgeCount() + 1;
    if (m.from < 0 || m.from >= nodes)
        return "unknown sender node " + std::to_string(m.from);
    if (m.to != m_self)
        return "addressed to node " + std::to_string(m.to) + ", this is node " + std::to_string(m_self);
    if (m.from == m_self)
        return "a message from this node to itself";
    const bool selfIsCenter = m_self == e::kCenterNode;
    const bool senderIsCenter = m.from == e::kCenterNode;
    // Under hub merges a shard's hub sends its regions the answers the
    // center would, and takes their deltas.
    const bool hubSends = hubMayStandIn(m.kind) && !senderIsCenter && hubOfEvery(m, m.from);
    const bool hubTakes = hubMayStandIn(m.kind) && !selfIsCenter && hubOfEvery(m, m_self);
    if (senderIsCenter != fromCenter(m.kind) && !hubSends)
        return std::string(e::messageKindName(m.kind)) + (senderIsCenter ? " never comes from the center"
                                                                         : " comes only from the center");
    if (selfIsCenter != toCenter(m.kind) && m.kind != K::OwnerAnnounce && !hubTakes)
        return std::string(e::messageKindName(m.kind)) + (selfIsCenter ? " is not for the center" : " is for the center");
    if (auto why = checkHubTraffic(m); !why.empty())
        return why;
    if (m.origin < -1 || m.origin >= m_shape.edgeCount())
        return "unknown origin edge " + std::to_string(m.origin);
    // An owner files gradients and catch-up requests under their origin
    // edge (its epoch gate indexes by it): without one, the node's thread
    // would throw and take the process down.
    if ((m.kind == K::Gradients || m.kind == K::CatchUpRequest) && m.origin < 0)
        return std::string(e::messageKindName(m.kind)) + " names no origin edge";
    // An edge asks for catch-up for itself only (a forwarded gradient may
    // name another origin; a catch-up request never does).
    if (m.kind == K::CatchUpRequest && m.origin != e::ClusterShape::edgeOfNode(m.from))
        return "catch_up_request from node " + std::to_string(m.from) + " names edge " + std::to_string(m.origin) +
               " as its origin";
    if (!std::isfinite(m.lease.expiresAt) || !std::isfinite(m.sentAt) || !std::isfinite(m.writtenAt))
        return "non-finite time stamp";
    for (const auto &item : m.shards)
        if (auto why = checkItem(m, item); !why.empty())
            return why;
    auto whole = [&](const at::Tensor &t, std::int64_t n, const char *what) -> std::string {
        if (!t.defined())
            return "";
        if (t.scalar_type() != at::kFloat || t.dim() != 1 || t.numel() != n)
            return std::string(what) + ": expected " + std::to_string(n) + " float32 values, got " +
                   std::to_string(t.numel()) + " " + at::toString(t.scalar_type());
        return "";
    };
    if (wholeModel(m.kind)) {
        if (!m.tensor.defined())
            return std::string(e::messageKindName(m.kind)) + " carries no model";
        if (auto why = whole(m.tensor, m_parameters, "model tensor"); !why.empty())
            return why;
    } else if (m.tensor.defined() && m.kind != K::RingChunk) {
        return std::string(e::messageKindName(m.kind)) + " carries an unexpected tensor";
    }
    if (auto why = whole(m.buffers, m_buffers, "batch-norm statistics"); !why.empty())
        return why;
    if (m.kind == K::HubPull) {
        // The regions the center hears, which the hub's merges count.
        if (m.owners.size() > std::size_t(m_shape.regionCount()))
            return "hub_pull names " + std::to_string(m.owners.size()) + " regions, the cluster has " +
                   std::to_string(m_shape.regionCount());
        for (int region : m.owners)
            if (region < 0 || region >= m_shape.regionCount())
                return "hub_pull names unknown region " + std::to_string(region);
    } else if (!m.owners.empty()) {
        if (m.owners.size() != m_shardSizes.size())
            return "owner list of " + std::to_string(m.owners.size()) + " for " +
                   std::to_string(m_shardSizes.size()) + " shards";
        for (int o : m.owners)
            if (o < 0 || o >= m_shape.edgeCount())
                return "unknown owner edge " + std::to_string(o);
    }
    return "";
}

bool MessageGuard::hubOfEvery(const e::Message &m, int node) const {
    if (m_hubOfShard.empty() || m.shards.empty())
        return false;
    return std::all_of(m.shards.begin(), m.shards.end(), [&](const e::ShardItem &item) {
        return item.shard >= 0 && std::size_t(item.shard) < m_hubOfShard.size() &&
               m_hubOfShard[std::size_t(item.shard)] == node;
    });
}

std::string MessageGuard::checkHubTraffic(const e::Message &m) const {
    if (m.kind != K::HubPull && m.kind != K::HubCopy)
        return "";
    const char *kind = e::messageKindName(m.kind);
    if (m_hubOfShard.empty())
        return std::string(kind) + ": this cluster does not merge at hubs (knobs.hub_merges is off)";
    // A pull names the hub's shards, an answer its hub's; an answer with
    // none says nothing changed (the center's round waits for it).
    const int hub = m.kind == K::HubPull ? m_self : m.from;
    if (std::find(m_hubOfShard.begin(), m_hubOfShard.end(), hub) == m_hubOfShard.end())
        return std::string(kind) + (m.kind == K::HubPull ? " to" : " from") + " node " + std::to_string(hub) +
               ", which is no shard's hub";
    if (!m.shards.empty() && !hubOfEvery(m, hub))
        return std::string(kind) + " names a shard whose hub is not node " + std::to_string(hub);
    return "";
}

std::string MessageGuard::admit(const e::Message &m) {
    if (auto why = checkShape(m); !why.empty())
        return why;
    std::lock_guard lock(m_mutex);
    const bool stampedByEdge = m.from != e::kCenterNode && m.lease.epoch > 0;
    if (stampedByEdge) {
        // An edge never goes back to an older epoch: a message stamped with
        // one is a replay (or a straggler the owner's epoch gate would
        // refuse anyway).
        const auto it = m_epochSeen.find(m.from);
        if (it != m_epochSeen.end() && m.lease.epoch < it->second)
            return "replayed lease epoch " + std::to_string(m.lease.epoch) + " (node " + std::to_string(m.from) +
                   " already presented " + std::to_string(it->second) + ")";
    }
    if (carriesValues(m.kind))
        for (const auto &item : m.shards) {
            const auto it = m_versionSeen.find(item.shard);
            if (it != m_versionSeen.end() && item.version != 0 && item.version < it->second &&
                m.kind == K::Values)
                return "stale version " + std::to_string(item.version) + " of shard " + std::to_string(item.shard) +
                       " (this node already has " + std::to_string(it->second) + ")";
        }
    if (stampedByEdge)
        m_epochSeen[m.from] = std::max(m_epochSeen[m.from], m.lease.epoch);
    if (m.kind == K::Values)
        for (const auto &item : m.shards)
            m_versionSeen[item.shard] = std::max(m_versionSeen[item.shard], item.version);
    return "";
}

} // namespace synaptic::rpc
