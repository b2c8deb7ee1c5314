#include "shard_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace synaptic::engine {

int PlanTopology::totalEdges() const { return std::accumulate(edgesPerRegion.begin(), edgesPerRegion.end(), 0); }

int PlanTopology::firstEdgeOf(int region) const {
    return std::accumulate(edgesPerRegion.begin(), edgesPerRegion.begin() + region, 0);
}

namespace {

std::string percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100.0);
    return buf;
}

std::vector<ShardSpec> splitLayers(const std::vector<LayerLayout> &layers, std::int64_t total, double maxFraction) {
    std::vector<ShardSpec> shards;
    const auto maxParams = std::max<std::int64_t>(1, std::int64_t(std::floor(maxFraction * double(total))));
    for (const auto &layer : layers) {
        // Rows per shard so no shard exceeds maxParams; spread the remainder
        // so shards of one layer differ by at most one row.
        const std::int64_t rowsPerShardCap = std::max<std::int64_t>(1, maxParams / layer.paramsPerRow);
        const std::int64_t count = (layer.rows + rowsPerShardCap - 1) / rowsPerShardCap;
        const std::int64_t base = layer.rows / count;
        const std::int64_t extra = layer.rows % count;
        std::int64_t row = 0;
        for (std::int64_t i = 0; i < count; ++i) {
            const std::int64_t n = base + (i < extra ? 1 : 0);
            shards.push_back({int(shards.size()), layer.name, row, row + n, n * layer.paramsPerRow});
            row += n;
        }
    }
    return shards;
}

// Target shares of one region's edges: proportional to capacity and kept
// within [lo, hi], i.e. clamp(lambda * capacity, lo, hi) with the one lambda
// that makes them add up to the whole model (found by bisection: the sum
// grows with lambda from E * lo to E * hi). Equal capacities give 1/E each.
// When the bounds cannot hold for this many edges (E * lo > 1 or E * hi <
// 1), proportional shares stand and the plan's problems say why.
std::vector<double> targetShares(const std::vector<double> &capacity, double lo, double hi) {
    // Capacities are > 0 (planShards checks them).
    const auto edges = capacity.size();
    std::vector<double> share(edges);
    if (double(edges) * lo > 1.0 + 1e-12 || double(edges) * hi < 1.0 - 1e-12) {
        const double total = std::accumulate(capacity.begin(), capacity.end(), 0.0);
        for (std::size_t e = 0; e < edges; ++e)
            share[e] = capacity[e] / total;
        return share;
    }
    const double smallest = *std::min_element(capacity.begin(), capacity.end());
    auto sumAt = [&](double lambda) {
        double sum = 0;
        for (std::size_t e = 0; e < edges; ++e)
            sum += std::clamp(lambda * capacity[e], lo, hi);
        return sum;
    };
    double below = 0, above = hi / smallest; // at `above` every edge with capacity is at hi
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (below + above);
        (sumAt(mid) < 1.0 ? below : above) = mid;
    }
    for (std::size_t e = 0; e < edges; ++e)
        share[e] = std::clamp(above * capacity[e], lo, hi);
    return share;
}

} // namespace

ShardPlan planShards(const std::vector<LayerLayout> &layers, const PlanTopology &topology,
                     const PlanOptions &options) {
    ShardPlan plan;
    for (const auto &layer : layers) {
        if (layer.rows <= 0 || layer.paramsPerRow <= 0)
            throw std::invalid_argument("planShards: layer '" + layer.name + "' has no rows or no parameters");
        plan.totalParameters += layer.parameterCount();
    }
    if (plan.totalParameters == 0)
        throw std::invalid_argument("planShards: the model has no shardable layers");
    if (topology.edgesPerRegion.empty())
        throw std::invalid_argument("planShards: the topology has no regions");
    if (!topology.edgeCapacity.empty() && topology.edgeCapacity.size() != std::size_t(topology.totalEdges()))
        throw std::invalid_argument("planShards: " + std::to_string(topology.edgeCapacity.size()) +
                                    " edge capacities for " + std::to_string(topology.totalEdges()) + " edges");
    for (std::size_t e = 0; e < topology.edgeCapacity.size(); ++e)
        if (!(topology.edgeCapacity[e] > 0) || !std::isfinite(topology.edgeCapacity[e]))
            throw std::invalid_argument("planShards: edge " + std::to_string(e) + " has capacity " +
                                        std::to_string(topology.edgeCapacity[e]) + ", must be > 0");
    for (std::size_t r = 0; r < topology.edgesPerRegion.size(); ++r)
        if (topology.edgesPerRegion[r] <= 0)
            throw std::invalid_argument("planShards: region " + std::to_string(r) + " has no edges");

    plan.shards = splitLayers(layers, plan.totalParameters, options.maxShardFraction);
    std::vector<int> order(plan.shards.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return plan.shards[a].parameters > plan.shards[b].parameters; });

    plan.edgeShare.assign(std::size_t(topology.totalEdges()), 0.0);
    for (int region = 0; region < int(topology.edgesPerRegion.size()); ++region) {
        const int first = topology.firstEdgeOf(region);
        const int edges = topology.edgesPerRegion[region];
        std::vector<double> capacity(std::size_t(edges), 1.0);
        if (!topology.edgeCapacity.empty())
            capacity.assign(topology.edgeCapacity.begin() + first, topology.edgeCapacity.begin() + first + edges);
        const auto target = targetShares(capacity, options.minShare, options.maxShare);
        const double cap = options.maxShare * double(plan.totalParameters);
        std::vector<std::int64_t> load(std::size_t(edges), 0);
        std::vector<int> owners(plan.shards.size(), -1);
        for (int s : order) {
            // The emptiest edge against its target takes the shard; among
            // those it keeps under the maximum, if any (a target on the
            // bound would otherwise end a shard past it).
            std::size_t best = 0;
            double bestFill = 0;
            bool bestFits = false;
            for (std::size_t e = 0; e < load.size(); ++e) {
                const bool fits = double(load[e] + plan.shards[s].parameters) <= cap + 1e-9;
                const double fill = double(load[e]) / std::max(target[e] * double(plan.totalParameters), 1e-9);
                if (e == 0 || (fits && !bestFits) || (fits == bestFits && fill < bestFill)) {
                    best = e;
                    bestFill = fill;
                    bestFits = fits;
                }
            }
            load[best] += plan.shards[s].parameters;
            owners[s] = first + int(best);
        }
        for (int e = 0; e < edges; ++e)
            plan.edgeShare[first + e] = double(load[e]) / double(plan.totalParameters);
        plan.owner.push_back(std::move(owners));

        const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
        const double minShare = double(*lo) / double(plan.totalParameters);
        const double maxShare = double(*hi) / double(plan.totalParameters);
        const std::string where = "region " + std::to_string(region) + " (" + std::to_string(edges) + " edges)";
        if (maxShare > options.maxShare + 1e-12) {
            const int needed = int(std::ceil(1.0 / options.maxShare - 1e-9));
            plan.problems.push_back(where + ": an edge owns " + percent(maxShare) + ", " +
                                    percent(maxShare - options.maxShare) + " over the " + percent(options.maxShare) +
                                    " maximum; at least " + std::to_string(needed) + " edges per region are needed");
        }
        if (minShare < options.minShare - 1e-12) {
            const int allowed = int(std::floor(1.0 / options.minShare + 1e-9));
            plan.problems.push_back(where + ": an edge owns " + percent(minShare) + ", " +
                                    percent(options.minShare - minShare) + " under the " +
                                    percent(options.minShare) + " minimum; at most " + std::to_string(allowed) +
                                    " edges per region can each own that much");
        }
    }
    return plan;
}

} // namespace synaptic::engine
