#include "live_commands.h"

namespace synaptic::rpc {

namespace e = synaptic::engine;

std::string validateLiveCommand(const e::SimCommand &c, const e::ClusterShape &shape, int shards) {
    using K = e::SimCommand::Kind;
    const int edges = shape.edgeCount();
    auto node = [&](int n) { return n >= -1 && n < edges; };
    switch (c.kind) {
    case K::MoveShard:
        if (c.shard < 0 || c.shard >= shards)
            return "no shard " + std::to_string(c.shard);
        if (c.region < 0 || c.region >= shape.regionCount())
            return "no region " + std::to_string(c.region);
        if (c.node < 0 || c.node >= edges || shape.regionOfEdge[std::size_t(c.node)] != c.region)
            return "shards move only between edges of the same region";
        return "";
    case K::SetLink:
    case K::PartitionLink:
    case K::HealLink:
        if (!node(c.node) || !node(c.nodeB) || c.node == c.nodeB)
            return "no such link";
        if (c.kind == K::SetLink &&
            (!(c.link.bandwidthBitsPerSecond > 0) || !(c.link.latencySeconds >= 0) || !(c.link.lossRate >= 0) ||
             !(c.link.lossRate <= 1)))
            return "a link needs bandwidth > 0, latency >= 0 and loss in [0, 1]";
        if (c.kind == K::SetLink && (c.link.duplicateRate > 0 || c.link.jitterSeconds > 0))
            return "duplicating and reordering links are simulator faults: a live cluster does not emulate them";
        return "";
    case K::PartitionRegion:
    case K::HealRegion:
        if (c.region < 0 || c.region >= shape.regionCount())
            return "no such region";
        return "";
    case K::KillNode:
        return node(c.node) ? "" : "no such node";
    case K::ReviveNode:
        if (c.value > 0)
            return "live nodes keep no state files yet: a revive from an old one is a simulator fault";
        return node(c.node) ? "" : "no such node";
    default:
        return e::isKnobCommand(c) ? "" : "unknown command";
    }
}

bool concernsLinksOf(const e::SimCommand &c, const e::ClusterShape &shape, int self) {
    using K = e::SimCommand::Kind;
    auto nodeOf = [](int edgeOrCenter) { return edgeOrCenter < 0 ? e::kCenterNode : edgeOrCenter + 1; };
    switch (c.kind) {
    case K::SetLink:
    case K::PartitionLink:
    case K::HealLink:
        return nodeOf(c.node) == self || nodeOf(c.nodeB) == self;
    case K::PartitionRegion:
    case K::HealRegion:
        (void)shape;
        return true; // every node's links to or from the region change
    default:
        return false;
    }
}

} // namespace synaptic::rpc
