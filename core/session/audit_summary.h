#pragma once

#include "core/engine/sim/sim_events.h"

#include <string>
#include <vector>

namespace synaptic::session {

// What a run's audit history is made of (issue 15): events and bytes per
// kind, as the recording holds them before compression. The figures to
// look at when a recording grows (synaptic-node check prints them).
std::string describeAuditHistory(const std::vector<engine::SimEvent> &events);

} // namespace synaptic::session
