#pragma once

#include "layer_layout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::engine {

// A contiguous slice of one layer's rows (DESIGN.md §1 "shard").
struct ShardSpec {
    int id = 0;
    std::string layer;
    std::int64_t rowBegin = 0; // inclusive
    std::int64_t rowEnd = 0;   // exclusive
    std::int64_t parameters = 0;
};

struct PlanTopology {
    // Number of edges in each region; edges are numbered globally, region by
    // region (region 0's edges first).
    std::vector<int> edgesPerRegion;
    int totalEdges() const;
    int firstEdgeOf(int region) const;
};

struct PlanOptions {
    double minShare = 0.05; // each edge should own at least this fraction...
    double maxShare = 0.15; // ...and at most this fraction of all parameters
    // Upper bound on one shard's size as a fraction of all parameters: small
    // enough that owners can be balanced, large enough to keep the table short.
    double maxShardFraction = 0.02;
};

struct ShardPlan {
    std::vector<ShardSpec> shards;
    // owner[region][shard] = global edge index owning that shard in that region
    std::vector<std::vector<int>> owner;
    std::vector<double> edgeShare; // fraction of all parameters each edge owns
    std::int64_t totalParameters = 0;
    // Empty when every edge's share is within [minShare, maxShare]; otherwise
    // one line per problem saying why and by how much.
    std::vector<std::string> problems;
    bool withinBounds() const { return problems.empty(); }
};

// Splits every layer into shards of whole rows (no shard larger than
// maxShardFraction of all parameters unless a single row is), then in each
// region assigns every shard to exactly one of the region's edges, largest
// shard first to the least-loaded edge (ties: lower edge index), which is
// deterministic and as even as whole shards allow. Since the region's edges
// share all of the model, each owns about 1/E of it: bounds [5 %, 15 %] need
// 7..20 edges per region, and the plan says so when a region has other counts.
// Throws std::invalid_argument for an empty model or a region without edges.
ShardPlan planShards(const std::vector<LayerLayout> &layers, const PlanTopology &topology,
                     const PlanOptions &options = {});

} // namespace synaptic::engine
