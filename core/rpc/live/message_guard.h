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
// node never sees it. Thread-safe (gRPC callbacks call it concurrently).
class MessageGuard {
public:
    MessageGuard(int self, const engine::ClusterShape &shape, const engine::ModelSetup &model);

    // Empty when `m` may be delivered; otherwise the reason it is refused.
    // A message that passes is remembered (epochs, versions).
    std::string admit(const engine::Message &m);

private:
    std::string checkShape(const engine::Message &m) const;
    std::string checkItem(const engine::Message &m, const engine::ShardItem &item) const;

    const int m_self;
    const engine::ClusterShape &m_shape;
    std::vector<std::int64_t> m_shardSizes;
    std::int64_t m_parameters = 0;
    std::int64_t m_buffers = 0;
    std::mutex m_mutex;
    std::map<int, std::uint64_t> m_epochSeen;    // guarded: latest lease epoch per sending edge
    std::map<int, std::uint64_t> m_versionSeen;  // guarded: newest shard version accepted in values
};

} // namespace synaptic::rpc
