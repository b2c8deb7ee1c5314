#pragma once

#include "synaptic_v1.pb.h"

#include "core/engine/sim/message.h"

namespace synaptic::rpc {

// engine::Message <-> synaptic.v1.NodeMessage, field for field: the size of
// what toProto() makes is engine::encodedSize() exactly (tst_wire_format).
v1::NodeMessage toProto(const engine::Message &m);

// Decodes a message from the wire. Throws WireError naming the field for an
// unknown kind, a malformed tensor, NaN or Inf in a tensor, or a negative
// shard id. Whether the message fits the receiver (its node ids, shard
// sizes) is message_guard's to check.
engine::Message fromProto(const v1::NodeMessage &m);

} // namespace synaptic::rpc
