#pragma once

#include "core/engine/sim/sim_events.h"
#include "core/engine/synapse/routing_table.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace synaptic::session {

namespace pb {
class Keyframe;
}

// What a session looks like at one instant of a run: the latest routing
// table, each edge's lease, each metric scope's latest value, the latest
// center check. The writer folds the stream into one to write keyframes;
// a reader that seeks starts from a keyframe and folds forward to the
// wanted time. Same fold both ways, so a seek lands on the state the
// writer saw.
struct SessionState {
    double time = 0;
    std::uint64_t events = 0; // events of the run folded so far
    std::shared_ptr<const engine::RoutingSnapshot> routing;
    double routingTime = 0;
    std::map<int, engine::LeaseEvent> leases;           // by edge
    std::map<std::string, engine::MetricEvent> metrics; // by scope
    std::optional<engine::ConsistencyEvent> consistency;

    void apply(const engine::SimEvent &event);
    void applyRouting(std::shared_ptr<const engine::RoutingSnapshot> snapshot, double at);

    pb::Keyframe toKeyframe() const;
    // Throws std::runtime_error for a keyframe whose routing table is malformed.
    static SessionState fromKeyframe(const pb::Keyframe &keyframe);
};

} // namespace synaptic::session
