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
    // How much traffic each edge (global index) can carry for the shards it
    // owns, in any unit (its bandwidth to its region's edges): an owner
    // receives its region's gradients and sends values back for every shard
    // it owns, so a slow access line should own less. Empty: all equal;
    // otherwise one value > 0 per edge (std::invalid_argument if not).
    std::vector<double> edgeCapacity;
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
// region assigns every shard to exactly one of the region's edges. Each edge
// has a target share of the model: in proportion to its capacity, kept
// within [minShare, maxShare] where the region's edge count allows (equal
// capacities: 1/E each). Shards go largest first to the edge least full
// against its target among those the shard keeps under maxShare (ties:
// lower edge index), which is
// deterministic and as close to the targets as whole shards allow. Since the
// region's edges share all of the model, bounds [5 %, 15 %] need 7..20 edges
// per region, and the plan says so when a region has other counts.
// Throws std::invalid_argument for an empty model or a region without edges.
ShardPlan planShards(const std::vector<LayerLayout> &layers, const PlanTopology &topology,
                     const PlanOptions &options = {});

} // namespace synaptic::engine
