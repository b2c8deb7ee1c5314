#pragma once

#include "core/engine/sim/node_context.h"

#include <vector>

namespace synaptic::engine {

// The rings of the hierarchical baselines: a region's edges (as node ids,
// in edge order) and one leader per region (its first edge).
std::vector<int> regionNodes(const ClusterShape &shape, int region);
std::vector<int> leaderNodes(const ClusterShape &shape);
inline int leaderOf(const ClusterShape &shape, int region) { return regionNodes(shape, region).front(); }

} // namespace synaptic::engine
