#include "session_state.h"

#include "record_codec.h"

namespace synaptic::session {

void SessionState::apply(const engine::SimEvent &event) {
    time = std::max(time, eventTime(event));
    ++events;
    if (const auto *lease = std::get_if<engine::LeaseEvent>(&event))
        leases[lease->edge] = *lease;
    else if (const auto *metric = std::get_if<engine::MetricEvent>(&event))
        metrics[metric->scope] = *metric;
    else if (const auto *check = std::get_if<engine::ConsistencyEvent>(&event))
        consistency = *check;
}

void SessionState::applyRouting(std::shared_ptr<const engine::RoutingSnapshot> snapshot, double at) {
    routing = std::move(snapshot);
    routingTime = at;
    time = std::max(time, at);
}

pb::Keyframe SessionState::toKeyframe() const {
    pb::Keyframe k;
    k.set_time(time);
    k.set_events_before(events);
    if (routing)
        *k.mutable_routing() = toProto(*routing, routingTime);
    for (const auto &[edge, lease] : leases) {
        *k.add_leases() = toProto(engine::SimEvent{lease}).lease();
        k.add_lease_times(lease.time);
    }
    for (const auto &[scope, metric] : metrics) {
        *k.add_metrics() = toProto(engine::SimEvent{metric}).metric();
        k.add_metric_times(metric.time);
    }
    if (consistency) {
        *k.mutable_consistency() = toProto(engine::SimEvent{*consistency}).consistency();
        k.set_consistency_time(consistency->time);
    }
    return k;
}

SessionState SessionState::fromKeyframe(const pb::Keyframe &k) {
    SessionState s;
    s.time = k.time();
    s.events = k.events_before();
    if (k.has_routing()) {
        s.routing = fromProto(k.routing());
        s.routingTime = k.routing().time();
    }
    for (int i = 0; i < k.leases_size(); ++i) {
        const auto &l = k.leases(i);
        s.leases[l.edge()] = engine::LeaseEvent{i < k.lease_times_size() ? k.lease_times(i) : k.time(), l.edge(),
                                                l.mode(), l.epoch()};
    }
    for (int i = 0; i < k.metrics_size(); ++i) {
        const auto &m = k.metrics(i);
        s.metrics[m.scope()] = engine::MetricEvent{i < k.metric_times_size() ? k.metric_times(i) : k.time(),
                                                   m.scope(), m.samples(), m.loss(), m.accuracy(), m.exit_accuracy()};
    }
    if (k.has_consistency()) {
        const auto &c = k.consistency();
        s.consistency = engine::ConsistencyEvent{k.consistency_time(), c.round(), c.checked(), c.mismatches(),
                                                 c.max_drift()};
    }
    return s;
}

} // namespace synaptic::session
