#pragma once

#include "message.h"

#include <cstdint>

namespace synaptic::engine {

// The exact number of bytes a Message takes on the wire (DESIGN.md §3): the
// size of its synaptic.v1.NodeMessage protobuf encoding (core/rpc/proto/
// synaptic_v1.proto), computed here field by field without protobuf so the
// engine stays free of it; tests/tst_wire_format.cpp encodes every message
// kind with the real codec and checks the two agree to the byte. What a
// live transport adds per message is kGrpcFramingBytes (gRPC's 1-byte
// compression flag and 4-byte length in front of every message); HTTP/2
// frame headers are below both and counted by neither.
std::uint64_t encodedSize(const Message &m);
// Protobuf's base-128 varint length of `v` (1 to 10 bytes).
std::uint64_t varintBytes(std::uint64_t v);

inline constexpr std::uint64_t kGrpcFramingBytes = 5;

// What the simulator charges a link for `m`: encodedSize + kGrpcFramingBytes.
inline std::uint64_t wireBytes(const Message &m) { return encodedSize(m) + kGrpcFramingBytes; }

// Bytes per element of a tensor's dtype on the wire (raw little-endian).
std::uint64_t wireElementBytes(const at::Tensor &t);

// The parts of wireBytes(m) that are tensor data, as coded: the shards'
// `data` and the message tensor, with their int8 scales and top-k indices
// (tensorPayloadBytes), and the batch-norm statistics riding along
// (batchNormBytes). The rest is protobuf fields, tags, lengths and gRPC
// framing, and a Handoff's other tensors (optimizer state, base copies:
// it never leaves its region, so no WAN figure misses them).
std::uint64_t tensorPayloadBytes(const Message &m);
std::uint64_t batchNormBytes(const Message &m);
// How many fp32 elements tensorPayloadBytes(m) stands for once decoded.
std::uint64_t tensorElements(const Message &m);

} // namespace synaptic::engine
