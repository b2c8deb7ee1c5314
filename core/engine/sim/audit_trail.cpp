#include "audit_trail.h"

#include "node_context.h"

namespace synaptic::engine {

namespace {

void fromReport(int node, double now, const NodeReport &report, AuditEvent &cached,
                const std::function<void(AuditEvent)> &emit) {
    using K = AuditEvent::Kind;
    if (const auto *l = std::get_if<LedgerReport>(&report)) {
        if (l->ids.empty())
            return;
        AuditEvent e;
        e.time = now;
        e.node = node;
        e.shard = l->shard;
        e.ids = l->ids;
        switch (l->kind) {
        case LedgerReport::Kind::Applied: e.kind = K::Apply; break;
        case LedgerReport::Kind::Rejected:
            e.kind = K::Lost;
            e.reason = l->reason.empty() ? "rejected" : l->reason;
            break;
        case LedgerReport::Kind::LostInCrash:
        case LedgerReport::Kind::RolledBack:
            e.kind = K::Lost;
            e.reason = l->reason.empty() ? "owner_crashed" : l->reason;
            break;
        default: return;
        }
        emit(std::move(e));
    } else if (const auto *r = std::get_if<RouteReport>(&report)) {
        if (r->kind == RouteReport::Kind::CachedVersion) {
            // One event per handler for every copy an edge cached (a Values
            // message brings several): caches are most of the history.
            cached.node = ClusterShape::nodeOfEdge(r->edge);
            cached.shards.push_back(r->shard);
            cached.versions.push_back(r->version);
            return;
        }
        if (r->kind != RouteReport::Kind::OwnerVersion && r->kind != RouteReport::Kind::CenterVersion)
            return;
        AuditEvent e;
        e.time = now;
        e.kind = K::Version;
        e.node = node;
        e.shard = r->shard;
        e.region = r->kind == RouteReport::Kind::OwnerVersion ? r->region : -1;
        e.version = r->version;
        e.checksum = r->checksum;
        emit(std::move(e));
    }
}

} // namespace

void auditOutbox(int node, int region, double now, const Outbox &out,
                 const std::function<void(AuditEvent)> &emit) {
    AuditEvent cached;
    cached.time = now;
    cached.kind = AuditEvent::Kind::Version;
    cached.cache = true;
    for (const auto &r : out.reports)
        fromReport(node, now, r, cached, emit);
    if (!cached.shards.empty())
        emit(std::move(cached));
    for (const auto &m : out.messages) {
        if (m.kind == MessageKind::LeaseGrant && node == kCenterNode) {
            AuditEvent e;
            e.time = now;
            e.kind = AuditEvent::Kind::Grant;
            e.node = m.to;
            e.epoch = m.lease.epoch;
            e.expiresAt = m.lease.expiresAt;
            emit(std::move(e));
        } else if (m.kind == MessageKind::Gradients && m.origin >= 0 && node == ClusterShape::nodeOfEdge(m.origin)) {
            // As the edge first sent it; an old owner's forward is not a send.
            AuditEvent e;
            e.time = now;
            e.kind = AuditEvent::Kind::Send;
            e.node = node;
            e.region = region;
            e.epoch = m.lease.epoch;
            e.expiresAt = m.lease.expiresAt;
            for (const auto &item : m.shards)
                for (const auto id : item.contributionIds) {
                    e.ids.push_back(id);
                    e.shards.push_back(item.shard);
                    e.versions.push_back(item.version);
                }
            if (!e.ids.empty())
                emit(std::move(e));
        }
    }
}

void auditDropped(double now, const Message &m, const char *reason, const std::function<void(AuditEvent)> &emit) {
    if (m.kind != MessageKind::Gradients)
        return;
    AuditEvent e;
    e.time = now;
    e.kind = AuditEvent::Kind::Lost;
    e.node = m.from;
    for (const auto &item : m.shards)
        for (const auto id : item.contributionIds) {
            e.ids.push_back(id);
            e.shards.push_back(item.shard);
        }
    e.reason = reason;
    if (!e.ids.empty())
        emit(std::move(e));
}

} // namespace synaptic::engine
