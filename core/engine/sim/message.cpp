#include "message.h"

namespace synaptic::engine {

namespace {
std::uint64_t floats(const at::Tensor &t) { return t.defined() ? std::uint64_t(t.numel()) : 0; }
} // namespace

const char *messageKindName(MessageKind kind) {
    switch (kind) {
    case MessageKind::Heartbeat: return "heartbeat";
    case MessageKind::LeaseGrant: return "lease_grant";
    case MessageKind::Gradients: return "gradients";
    case MessageKind::Values: return "values";
    case MessageKind::CatchUpRequest: return "catch_up_request";
    case MessageKind::CenterDelta: return "center_delta";
    case MessageKind::CenterValues: return "center_values";
    case MessageKind::Handoff: return "handoff";
    case MessageKind::FullGradient: return "full_gradient";
    case MessageKind::FullValues: return "full_values";
    case MessageKind::LocalDelta: return "local_delta";
    case MessageKind::RingChunk: return "ring_chunk";
    case MessageKind::GossipParams: return "gossip_params";
    }
    return "unknown";
}

std::uint64_t Message::bytes() const {
    constexpr std::uint64_t kHeader = 64;      // ids, kind, lease, round, timestamps
    constexpr std::uint64_t kShardHeader = 24; // shard id, version, checksum
    std::uint64_t n = kHeader + 4 * (floats(tensor) + floats(buffers));
    for (const auto &s : shards)
        n += kShardHeader + 4 * (floats(s.data) + floats(s.optimizer.m) + floats(s.optimizer.v) + floats(s.base) + floats(s.sentValues)) +
             8 * s.contributionIds.size();
    return n;
}

} // namespace synaptic::engine
