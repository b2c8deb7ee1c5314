#pragma once

#include "core/engine/synapse/routing_table.h"

#include <vector>

namespace synaptic::ui {

// [shard][edge]: the share of an embedding shard's rows each edge holds
// (issue 16: an edge holds the rows its data touched and what hot updates
// brought it). An empty inner vector, or no table at all, means every edge
// holds the whole shard, as for dense layers.
using HeldShares = std::vector<std::vector<float>>;

struct HeldStats {
    double mean = 1, min = 1; // over the edges
    bool partial = false;     // false: every edge holds the whole shard
};
HeldStats heldStats(const HeldShares *held, int shard);

// Of all the rows of the partially held (embedding) shards, the share `edge`
// holds; -1 when there are none.
double edgeHeldShare(const HeldShares *held, const engine::RoutingSnapshot &snapshot, int edge);

} // namespace synaptic::ui
