#pragma once

#include "core/engine/sim/knob_commands.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_command.h"

#include <string>

namespace synaptic::rpc {

// Why a command from the control plane can never apply to this cluster
// (an unknown shard, region, node or link; a move across regions); empty
// when it may. The center checks this before it routes a command anywhere.
std::string validateLiveCommand(const engine::SimCommand &c, const engine::ClusterShape &shape, int shards);

// Whether a node with id `self` has a part in network command `c` (one of
// its links changes).
bool concernsLinksOf(const engine::SimCommand &c, const engine::ClusterShape &shape, int self);

} // namespace synaptic::rpc
