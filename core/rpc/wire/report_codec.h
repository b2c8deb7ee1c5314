#pragma once

#include "synaptic_v1.pb.h"

#include "core/engine/sim/node_report.h"

#include <optional>
#include <string>

namespace synaptic::rpc {

// engine::NodeReport <-> synaptic.v1.NodeReport (edges send their reports
// to the center, which folds them like the simulator's driver does).
v1::NodeReport toProto(const engine::NodeReport &report, double time);
// std::nullopt for a report this build does not know, or with values out
// of range (a hostile edge must not reach the center's tables); then `why`,
// if given, says what was wrong (a few fixed phrases: the center counts
// refusals by it).
std::optional<engine::NodeReport> fromProto(const v1::NodeReport &report, std::string *why = nullptr);

} // namespace synaptic::rpc
