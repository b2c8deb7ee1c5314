#pragma once

#include "core/engine/sim/message.h"
#include "core/engine/sim/node_context.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace synaptic::rpc {

// Checks a decoded message before it reaches a node (issue 13 §8): that it
// comes from a node of this cluster and is meant for this one, is a kind
// this node takes from that sender, names the edge it speaks for where its
// kind needs one, names shards that exist with tensors of their exact size,
// carries a lease epoch no older than what its sender has already presented
// here, and values no older than what this node already accepted for the
// same shard. Anything else is refused with why, and the
// node never sees it. Under hub merges (`hubOfShard`: every shard's hub
// node, shard_hubs.h) a shard's hub, an edge, takes its deltas and answers
// them as the center does, and the center's pulls go to it; each of those
// messages must name only shards whose hub it is for. Thread-safe (gRPC
// callbacks call it concurrently).
class MessageGuard {
public:
    MessageGuard(int self, const engine::ClusterShape &shape, const engine::ModelSetup &model,
                 std::vector<int> hubOfShard = {});

    // Empty when `m` may be delivered; otherwise the reason it is refused.
    // A message that passes is remembered (epochs, versions).
    std::string admit(const engine::Message &m);

private:
    std::string checkShape(const engine::Message &m) const;
    std::string checkItem(const engine::Message &m, const engine::ShardItem &item) const;
    // Hub merges: whether `node` is the hub of every shard `m` names (and it names one).
    bool hubOfEvery(const engine::Message &m, int node) const;
    // Hub merges: why `m`, a hub's message or one for a hub, is refused ("" if not).
    std::string checkHubTraffic(const engine::Message &m) const;

    const int m_self;
    const engine::ClusterShape &m_shape;
    std::vector<std::int64_t> m_shardSizes;
    const std::vector<int> m_hubOfShard; // empty: hub merges are off
    std::int64_t m_parameters = 0;
    std::int64_t m_buffers = 0;
    std::mutex m_mutex;
    std::map<int, std::uint64_t> m_epochSeen;    // guarded: latest lease epoch per sending edge
    std::map<int, std::uint64_t> m_versionSeen;  // guarded: newest shard version accepted in values
};

} // namespace synaptic::rpc
