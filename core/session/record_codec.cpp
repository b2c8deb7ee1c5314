#include "record_codec.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace synaptic::session {

namespace e = engine;

pb::Command toProto(const e::SimCommand &c) {
    pb::Command m;
    m.set_kind(int(c.kind));
    m.set_at(c.at);
    m.set_shard(c.shard);
    m.set_region(c.region);
    m.set_node(c.node);
    m.set_node_b(c.nodeB);
    m.set_value(c.value);
    auto *l = m.mutable_link();
    l->set_latency_seconds(c.link.latencySeconds);
    l->set_bandwidth_bits_per_second(c.link.bandwidthBitsPerSecond);
    l->set_loss_rate(c.link.lossRate);
    l->set_up(c.link.up);
    l->set_duplicate_rate(c.link.duplicateRate);
    l->set_jitter_seconds(c.link.jitterSeconds);
    m.set_at_boundary(c.atBoundary);
    return m;
}

e::SimCommand fromProto(const pb::Command &m) {
    e::SimCommand c;
    // An unknown kind stays unknown: the engine refuses it with "unknown command".
    c.kind = static_cast<e::SimCommand::Kind>(m.kind());
    c.at = m.at();
    c.shard = m.shard();
    c.region = m.region();
    c.node = m.node();
    c.nodeB = m.node_b();
    c.value = m.value();
    c.link.latencySeconds = m.link().latency_seconds();
    c.link.bandwidthBitsPerSecond = m.link().bandwidth_bits_per_second();
    c.link.lossRate = m.link().loss_rate();
    c.link.up = m.link().up();
    c.link.duplicateRate = m.link().duplicate_rate();
    c.link.jitterSeconds = m.link().jitter_seconds();
    c.atBoundary = m.at_boundary();
    return c;
}

namespace {

struct ToProto {
    pb::Event &m;
    void operator()(const e::MetricEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_metric();
        p->set_scope(v.scope);
        p->set_samples(v.samples);
        p->set_loss(v.loss);
        p->set_accuracy(v.accuracy);
        p->set_exit_accuracy(v.exitAccuracy);
    }
    void operator()(const e::RoutingEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_routing();
        p->set_shard(v.shard);
        p->set_region(v.region);
        p->set_owner(v.owner);
        p->set_revision(v.revision);
        p->set_reason(v.reason);
    }
    void operator()(const e::LinkBytesEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_link_bytes();
        p->set_interval(v.interval);
        p->set_from(v.from);
        p->set_to(v.to);
        p->set_bytes(v.bytes);
    }
    void operator()(const e::DriftEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_drift();
        p->set_shard(v.shard);
        p->set_region(v.region);
        p->set_version_lag(v.versionLag);
        p->set_parameter_drift(v.parameterDrift);
    }
    void operator()(const e::ConsistencyEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_consistency();
        p->set_round(v.round);
        p->set_checked(v.checked);
        p->set_mismatches(v.mismatches);
        p->set_max_drift(v.maxDrift);
    }
    void operator()(const e::LeaseEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_lease();
        p->set_edge(v.edge);
        p->set_mode(v.mode);
        p->set_epoch(v.epoch);
    }
    void operator()(const e::InferenceEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_inference();
        p->set_interval(v.interval);
        p->set_requests(v.requests);
        p->set_at_edge(v.atEdge);
        p->set_degraded(v.degraded);
        p->set_correct_edge(v.correctEdge);
        p->set_correct_center(v.correctCenter);
        p->set_p50_ms(v.p50Ms);
        p->set_p95_ms(v.p95Ms);
        p->set_p99_ms(v.p99Ms);
        p->set_bytes_to_center(v.bytesToCenter);
        p->set_raw_input_bytes(v.rawInputBytes);
    }
    void operator()(const e::EdgeImageEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_edge_image();
        p->set_edge(v.edge);
        p->set_version(v.version);
        p->set_bytes(v.bytes);
        p->mutable_sweep_threshold()->Add(v.sweepThreshold.begin(), v.sweepThreshold.end());
        p->mutable_sweep_edge_share()->Add(v.sweepEdgeShare.begin(), v.sweepEdgeShare.end());
        p->mutable_sweep_accuracy()->Add(v.sweepAccuracy.begin(), v.sweepAccuracy.end());
    }
    void operator()(const e::RejectedInputEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_rejected_input();
        p->set_node(v.node);
        p->set_reason(v.reason);
        p->set_peer(v.peer);
        p->set_count(v.count);
    }
    void operator()(const e::AuditEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_audit();
        p->set_kind(int(v.kind));
        p->set_node(v.node);
        p->set_shard(v.shard);
        p->set_region(v.region);
        p->set_epoch(v.epoch);
        p->set_expires_at(v.expiresAt);
        p->set_version(v.version);
        p->set_checksum(v.checksum);
        p->set_cache(v.cache);
        p->mutable_ids()->Add(v.ids.begin(), v.ids.end());
        p->mutable_shards()->Add(v.shards.begin(), v.shards.end());
        p->mutable_versions()->Add(v.versions.begin(), v.versions.end());
        p->set_reason(v.reason);
        p->set_requests(v.requests);
        p->set_answered(v.answered);
        p->set_abandoned(v.abandoned);
        p->set_pending(v.pending);
        p->set_written_at(v.writtenAt);
    }
    void operator()(const e::CommandEvent &v) {
        m.set_time(v.time);
        auto *p = m.mutable_command();
        p->set_text(v.command);
        p->set_applied(v.applied);
        p->set_detail(v.detail);
        *p->mutable_issued() = toProto(v.issued);
        p->set_boundary(v.boundary);
    }
};

} // namespace

pb::Event toProto(const e::SimEvent &event) {
    pb::Event m;
    std::visit(ToProto{m}, event);
    return m;
}

std::optional<e::SimEvent> fromProto(const pb::Event &m) {
    const double t = m.time();
    switch (m.payload_case()) {
    case pb::Event::kMetric: {
        const auto &p = m.metric();
        return e::MetricEvent{t, p.scope(), p.samples(), p.loss(), p.accuracy(), p.exit_accuracy()};
    }
    case pb::Event::kRouting: {
        const auto &p = m.routing();
        return e::RoutingEvent{t, p.shard(), p.region(), p.owner(), p.revision(), p.reason()};
    }
    case pb::Event::kLinkBytes: {
        const auto &p = m.link_bytes();
        return e::LinkBytesEvent{t, p.interval(), p.from(), p.to(), p.bytes()};
    }
    case pb::Event::kDrift: {
        const auto &p = m.drift();
        return e::DriftEvent{t, p.shard(), p.region(), p.version_lag(), p.parameter_drift()};
    }
    case pb::Event::kConsistency: {
        const auto &p = m.consistency();
        return e::ConsistencyEvent{t, p.round(), p.checked(), p.mismatches(), p.max_drift()};
    }
    case pb::Event::kLease: {
        const auto &p = m.lease();
        return e::LeaseEvent{t, p.edge(), p.mode(), p.epoch()};
    }
    case pb::Event::kCommand: {
        const auto &p = m.command();
        return e::CommandEvent{t, p.text(), p.applied(), p.detail(), fromProto(p.issued()), p.boundary()};
    }
    case pb::Event::kInference: {
        const auto &p = m.inference();
        return e::InferenceEvent{t,           p.interval(),   p.requests(),        p.at_edge(),
                                 p.degraded(), p.correct_edge(), p.correct_center(), p.p50_ms(),
                                 p.p95_ms(),   p.p99_ms(),     p.bytes_to_center(), p.raw_input_bytes()};
    }
    case pb::Event::kEdgeImage: {
        const auto &p = m.edge_image();
        // A hostile file may hold sweeps of different lengths: keep the common part.
        const int n = std::min({p.sweep_threshold_size(), p.sweep_edge_share_size(), p.sweep_accuracy_size()});
        e::EdgeImageEvent ev{t, p.edge(), p.version(), p.bytes(), {}, {}, {}};
        ev.sweepThreshold.assign(p.sweep_threshold().begin(), p.sweep_threshold().begin() + n);
        ev.sweepEdgeShare.assign(p.sweep_edge_share().begin(), p.sweep_edge_share().begin() + n);
        ev.sweepAccuracy.assign(p.sweep_accuracy().begin(), p.sweep_accuracy().begin() + n);
        return ev;
    }
    case pb::Event::kRejectedInput: {
        const auto &p = m.rejected_input();
        return e::RejectedInputEvent{t, p.node(), p.reason(), p.peer(), p.count()};
    }
    case pb::Event::kAudit: {
        const auto &p = m.audit();
        // An unknown kind from a newer writer is skipped, not misread.
        if (p.kind() < 0 || p.kind() > int(e::AuditEvent::Kind::Restore))
            return std::nullopt;
        e::AuditEvent ev;
        ev.time = t;
        ev.kind = static_cast<e::AuditEvent::Kind>(p.kind());
        ev.node = p.node();
        ev.shard = p.shard();
        ev.region = p.region();
        ev.epoch = p.epoch();
        ev.expiresAt = p.expires_at();
        ev.version = p.version();
        ev.checksum = p.checksum();
        ev.cache = p.cache();
        ev.ids.assign(p.ids().begin(), p.ids().end());
        ev.shards.assign(p.shards().begin(), p.shards().end());
        ev.versions.assign(p.versions().begin(), p.versions().end());
        ev.reason = p.reason();
        ev.requests = p.requests();
        ev.answered = p.answered();
        ev.abandoned = p.abandoned();
        ev.pending = p.pending();
        ev.writtenAt = p.written_at();
        return ev;
    }
    default:
        return std::nullopt;
    }
}

pb::RoutingState toProto(const e::RoutingSnapshot &s, double time) {
    pb::RoutingState m;
    m.set_time(time);
    m.set_revision(s.revision);
    m.mutable_region_of_edge()->Add(s.regionOfEdge.begin(), s.regionOfEdge.end());
    m.mutable_rows()->Reserve(int(s.rows.size()));
    for (const auto &row : s.rows) {
        auto *r = m.add_rows();
        r->set_id(row->shard.id);
        r->set_layer(row->shard.layer);
        r->set_row_begin(row->shard.rowBegin);
        r->set_row_end(row->shard.rowEnd);
        r->set_parameters(row->shard.parameters);
        r->mutable_owner()->Add(row->owner.begin(), row->owner.end());
        r->mutable_owner_version()->Add(row->ownerVersion.begin(), row->ownerVersion.end());
        r->set_center_version(row->centerVersion);
        r->mutable_cached_version()->Add(row->cachedVersion.begin(), row->cachedVersion.end());
        r->mutable_last_sync()->Add(row->lastSync.begin(), row->lastSync.end());
        r->set_parameter_drift(row->parameterDrift);
    }
    return m;
}

std::shared_ptr<const e::RoutingSnapshot> fromProto(const pb::RoutingState &m) {
    auto s = std::make_shared<e::RoutingSnapshot>();
    s->revision = m.revision();
    s->regionOfEdge.assign(m.region_of_edge().begin(), m.region_of_edge().end());
    const int edges = int(s->regionOfEdge.size());
    int regions = 0;
    for (int r : s->regionOfEdge) {
        if (r < 0 || r >= edges)
            throw std::runtime_error("routing state: edge's region " + std::to_string(r) + " out of range");
        regions = std::max(regions, r + 1);
    }
    s->rows.reserve(std::size_t(m.rows_size()));
    for (int i = 0; i < m.rows_size(); ++i) {
        const auto &r = m.rows(i);
        const std::string where = "routing state row " + std::to_string(i) + ": ";
        if (r.owner_size() != regions || r.owner_version_size() != regions || r.last_sync_size() != regions)
            throw std::runtime_error(where + "expected one owner, version and sync time per region (" +
                                     std::to_string(regions) + ")");
        if (r.cached_version_size() != edges)
            throw std::runtime_error(where + "expected one cached version per edge (" + std::to_string(edges) + ")");
        for (int owner : r.owner())
            if (owner < 0 || owner >= edges)
                throw std::runtime_error(where + "owner " + std::to_string(owner) + " is not an edge");
        auto row = std::make_shared<e::ShardRoute>();
        row->shard = e::ShardSpec{r.id(), r.layer(), r.row_begin(), r.row_end(), r.parameters()};
        row->owner.assign(r.owner().begin(), r.owner().end());
        row->ownerVersion.assign(r.owner_version().begin(), r.owner_version().end());
        row->centerVersion = r.center_version();
        row->cachedVersion.assign(r.cached_version().begin(), r.cached_version().end());
        row->lastSync.assign(r.last_sync().begin(), r.last_sync().end());
        row->parameterDrift = r.parameter_drift();
        s->rows.push_back(std::move(row));
    }
    return s;
}

double eventTime(const e::SimEvent &event) {
    return std::visit([](const auto &v) { return v.time; }, event);
}

} // namespace synaptic::session
