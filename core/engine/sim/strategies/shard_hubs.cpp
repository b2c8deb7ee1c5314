#include "shard_hubs.h"

#include "core/engine/sim/message.h"

namespace synaptic::engine {

int hubNodeOfShard(const NodeContext &ctx, int shard) {
    const auto &owners = ctx.model->plan.owner;
    const auto region = std::size_t(shard) % owners.size();
    return ClusterShape::nodeOfEdge(owners[region][std::size_t(shard)]);
}

int mergeNodeOfShard(const NodeContext &ctx, int shard) {
    return ctx.config->knobs.hubMerges ? hubNodeOfShard(ctx, shard) : kCenterNode;
}

std::vector<int> shardsOfHub(const NodeContext &ctx, int node) {
    std::vector<int> shards;
    if (!ctx.config->knobs.hubMerges)
        return shards;
    for (int s = 0; s < int(ctx.model->plan.shards.size()); ++s)
        if (hubNodeOfShard(ctx, s) == node)
            shards.push_back(s);
    return shards;
}

std::vector<int> hubNodesOfShards(const NodeContext &ctx) {
    std::vector<int> hubs;
    if (!ctx.config->knobs.hubMerges)
        return hubs;
    for (int s = 0; s < int(ctx.model->plan.shards.size()); ++s)
        hubs.push_back(hubNodeOfShard(ctx, s));
    return hubs;
}

} // namespace synaptic::engine
