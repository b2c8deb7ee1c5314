#include "message.h"

#include "wire_size.h"

namespace synaptic::engine {


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
    case MessageKind::OwnerAnnounce: return "owner_announce";
    case MessageKind::HubPull: return "hub_pull";
    case MessageKind::HubCopy: return "hub_copy";
    }
    return "unknown";
}

bool isReliable(MessageKind k) {
    // A hub's pull answer is the center's copy of the model: reliable. A
    // lost pull costs a period (the next one asks again).
    return k == MessageKind::CenterDelta || k == MessageKind::CenterValues || k == MessageKind::Handoff ||
           k == MessageKind::OwnerAnnounce || k == MessageKind::HubCopy;
}

void setCoded(at::Tensor &field, TensorCoding &coding, Coded coded) {
    field = std::move(coded.values);
    coding.codec = coded.codec;
    coding.numel = coded.numel;
    coding.scales = std::move(coded.scales);
    coding.indices = std::move(coded.indices);
    coding.packed = std::move(coded.packed);
    if (coding.codec == Codec::Fp32) // travels as a plain tensor
        coding = TensorCoding{};
}

Coded codedOf(const at::Tensor &field, const TensorCoding &coding) {
    if (coding.codec == Codec::Fp32)
        return Coded{Codec::Fp32, field.defined() ? field.numel() : 0, field, {}, {}, nullptr};
    return Coded{coding.codec, coding.numel, field, coding.scales, coding.indices, coding.packed};
}

namespace {
void decodeField(at::Tensor &field, TensorCoding &coding) {
    if (coding.codec != Codec::Fp32)
        field = decode(codedOf(field, coding));
    coding = TensorCoding{};
}
} // namespace

void decodePayloads(Message &m) {
    for (auto &s : m.shards)
        decodeField(s.data, s.coding);
    decodeField(m.tensor, m.tensorCoding);
    decodeField(m.buffers, m.buffersCoding);
}

void setBatchNormStats(Message &m, const at::Tensor &stats, const CodecSpec &classSpec) {
    setCoded(m.buffers, m.buffersCoding, encodeStatistics(stats, classSpec));
}

std::uint64_t Message::bytes() const { return wireBytes(*this); }

} // namespace synaptic::engine
