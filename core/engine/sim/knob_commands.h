#pragma once

#include "cluster_config.h"
#include "sim_command.h"

#include <string>

namespace synaptic::engine {

// Whether `c` edits a knob of the config (windows, syncs, leases,
// thresholds, release cadence) rather than the network or a node.
bool isKnobCommand(const SimCommand &c);

// Applies a knob command to `config` (the simulator's driver and a live
// process alike); returns why it was refused, or an empty string. A
// per-edge confidence threshold (c.node >= 0) is checked here but kept by
// the caller, which knows its edges' overrides.
std::string applyKnobCommand(ClusterConfig &config, const SimCommand &c);

} // namespace synaptic::engine
