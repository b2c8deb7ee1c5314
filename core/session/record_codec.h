#pragma once

// Engine values <-> the recording's protobuf messages (proto/events.proto).
// Every double is stored as is, so a value read back equals the one written
// bit for bit.

#include "events.pb.h"

#include "core/engine/sim/sim_command.h"
#include "core/engine/sim/sim_events.h"
#include "core/engine/synapse/routing_table.h"

#include <memory>
#include <optional>

namespace synaptic::session {

pb::Command toProto(const engine::SimCommand &command);
engine::SimCommand fromProto(const pb::Command &command);

pb::Event toProto(const engine::SimEvent &event);
// std::nullopt for an event this build does not know (a newer writer's) or
// one without a payload; such events are skipped, not fatal.
std::optional<engine::SimEvent> fromProto(const pb::Event &event);

pb::RoutingState toProto(const engine::RoutingSnapshot &snapshot, double time);
// Throws std::runtime_error if the rows' per-region / per-edge arrays do not
// match the table's shape (a hostile or corrupt record must not reach the models).
std::shared_ptr<const engine::RoutingSnapshot> fromProto(const pb::RoutingState &state);

double eventTime(const engine::SimEvent &event);

} // namespace synaptic::session
