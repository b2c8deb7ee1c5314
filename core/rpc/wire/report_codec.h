#pragma once

#include "synaptic_v1.pb.h"

#include "core/engine/sim/node_report.h"

#include <optional>

namespace synaptic::rpc {

// engine::NodeReport <-> synaptic.v1.NodeReport (edges send their reports
// to the center, which folds them like the simulator's driver does).
v1::NodeReport toProto(const engine::NodeReport &report, double time);
// std::nullopt for a report this build does not know, or with values out
// of range (a hostile edge must not reach the center's tables).
std::optional<engine::NodeReport> fromProto(const v1::NodeReport &report);

} // namespace synaptic::rpc
