#pragma once

#include "core/engine/sim/node_context.h"

#include <vector>

namespace synaptic::engine {

// Where each shard's cross-region merge runs (knobs.hubMerges): at its
// planned owner in region (shard mod regions), so the hubs spread over the
// regions and their edges as the plan spreads the shards. Fixed by the
// plan: a move hands a shard's owner role to another edge, never its hub
// role, so every owner knows every hub from the config alone.
int hubNodeOfShard(const NodeContext &ctx, int shard);
// Where an owner sends its shard's deltas: its hub, or the center when
// hub merges are off.
int mergeNodeOfShard(const NodeContext &ctx, int shard);
// The shards whose hub is `node` (empty for the center and most edges
// when hub merges are off: there are no hubs then).
std::vector<int> shardsOfHub(const NodeContext &ctx, int node);
// Every shard's hub node, in shard order; empty when hub merges are off.
std::vector<int> hubNodesOfShards(const NodeContext &ctx);

} // namespace synaptic::engine
