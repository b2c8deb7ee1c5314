#pragma once

#include "core/engine/codec/codec.h"
#include "core/engine/synapse/lease.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// Node ids in a simulated cluster: the center is 0, edges are 1..E in config
// order (region by region).
inline constexpr int kCenterNode = 0;

enum class MessageKind {
    Heartbeat,       // edge -> center: "I hold this lease"
    LeaseGrant,      // center -> edge
    Gradients,       // edge -> owner: merged window gradients (or moves, under local updates) for the owner's shards
    Values,          // owner -> edges: new shard values and versions
    CatchUpRequest,  // edge -> owner: send me the current values of your shards
    CenterDelta,     // owner -> center (hub merges: the shard's hub): shard deltas since the last global version
    CenterValues,    // center (hub merges: the shard's hub) -> owner: new global shard values
    Handoff,         // old owner -> new owner: values + optimizer state (shard move)
    FullGradient,    // param_server: edge -> center, whole model
    FullValues,      // param_server / diloco: center -> edge, whole model
    LocalDelta,      // diloco: edge -> center, whole-model delta after H local steps
    RingChunk,       // allreduce: one chunk of the ring
    GossipParams,    // gossip: an edge's whole model to a neighbour
    OwnerAnnounce,   // new owner -> its region's edges and the center: "these shards are mine now"
    HubPull,         // hub merges: center -> a shard's hub, the copies it holds (and the regions it hears)
    HubCopy,         // hub merges: hub -> center, what changed since those copies (a pull's answer)
};
inline constexpr int kMessageKinds = int(MessageKind::HubCopy) + 1;

const char *messageKindName(MessageKind kind);


// Kinds whose sender's transport keeps trying until the message lands: the
// center's channel, shard handoffs and owner announcements (DESIGN.md §1:
// the slow, reliable back-to-origin channel). Every other kind is best
// effort: lost when its link is down or its receiver is dead. Receivers
// make redelivery harmless (versions, sequences, epochs).
bool isReliable(MessageKind kind);

// How a tensor field of a message is coded on the wire (issue 14). Fp32:
// the field is the tensor itself and nothing else is set; otherwise the
// field holds the codec's values (Coded::values) and this the rest. The
// transport decodes every coded field before a node sees the message
// (decodePayloads), so nodes only ever read fp32.
struct TensorCoding {
    Codec codec = Codec::Fp32;
    std::int64_t numel = 0;
    at::Tensor scales;
    at::Tensor indices;
    std::shared_ptr<const std::string> packed; // the zstd frame the wire carries for the values (Coded::packed)
};

// One shard's entry in a message.
struct ShardItem {
    int shard = 0;
    std::uint64_t version = 0;   // version the data belongs to (or was computed on)
    std::uint64_t checksum = 0;  // CenterDelta: checksum of the global copy the delta is based on
    std::uint64_t sequence = 0;  // CenterDelta / CenterValues: which delta an answer answers
    at::Tensor data;             // gradient, values or delta (flat)
    TensorCoding coding;         // how `data` travels
    // Values / CenterValues: `data` is the change from version `deltaFrom`
    // of the receiver's copy, not the values themselves (value deltas).
    bool delta = false;
    std::uint64_t deltaFrom = 0;
    AdamState optimizer;         // Handoff only
    std::vector<std::uint64_t> contributionIds; // Gradients: the pushes merged into `data`
    // Gradients: the weight, in aggregation windows, the edge claims for the
    // mean in `data` (held for a slow owner: more; windows kept open while
    // it trained ahead count as one).
    std::uint32_t windows = 1;
    // Handoff only: the rest of the owner's state for the shard.
    at::Tensor base;             // global copy the region last took from the center
    std::uint64_t baseVersion = 0;
    at::Tensor sentValues;       // values when an unanswered delta left for the center
    int windowsSinceSync = 0;    // edge windows merged since the last center sync
    bool syncInFlight = false;
    std::uint64_t syncSequence = 0;
    at::Tensor sentDelta;        // the delta in flight as the center decodes it (a resend carries it)
    bool finishing = false;      // the old owner's region had finished training
    at::Tensor residual;         // error feedback the shard's center deltas still owe (issue 14)
    at::Tensor published;        // the copy the region's edges hold (value deltas)
};

// What travels between nodes. Nodes never hold pointers to each other: all
// they know of another node is its id and what arrived in messages.
struct Message {
    MessageKind kind = MessageKind::Heartbeat;
    int from = 0;
    int to = 0;
    std::uint64_t round = 0;     // window / round / step counter of the sender
    Lease lease;                 // the sender's lease (edges), or the lease granted
    double sentAt = 0;           // virtual seconds, set by the driver on every hop
    // Gradients: the edge that wrote it (kept when an old owner forwards),
    // 0-based over every region's edges. Whether its items are moves, not
    // gradients, is that edge's config (ClusterConfig::localUpdatesAt, the
    // config every node holds), not a field of the message.
    int origin = -1;
    // Gradients: when the origin sent it (the lease must be valid then).
    // Heartbeat: its send time by the edge's own clock. LeaseGrant: the
    // lease's expiry by that clock (the heartbeat's send time plus what was
    // left at the grant), which is what the edge acts on. CatchUpRequest:
    // its send time by the edge's own clock; Values answering one echo it.
    double writtenAt = 0;
    std::vector<ShardItem> shards;
    at::Tensor tensor;           // whole-model or chunk payload
    TensorCoding tensorCoding;   // how `tensor` travels
    bool tensorDelta = false;    // FullValues: `tensor` is the change since the receiver's copy of version copyVersion
    // FullValues: the version the delta applies to; FullGradient / LocalDelta:
    // the version of the model copy the sender holds (0: the initial model).
    std::uint64_t copyVersion = 0;
    at::Tensor buffers;          // batch-norm statistics riding with gradients, deltas, gossip and ring chunks
    TensorCoding buffersCoding;  // how `buffers` travels (statisticsCodec: fp16 beside a lossy class codec)
    int chunk = -1;              // RingChunk: chunk index; phase in `round`
    bool last = false;           // Gradients: the sender used its step budget; this is its final window;
                                 // HubCopy: exact: nothing withheld, no coded delta (the center then
                                 // holds the hub's copies)
    bool join = false;           // Heartbeat: the sender (re)started and needs its region's routing
    std::vector<int> owners;     // LeaseGrant answering a join: owner edge of every shard in the edge's region;
                                 // HubPull: the regions the center hears

    // Bytes on the wire: its synaptic.v1 encoding plus gRPC's framing
    // (wire_size.h); what the simulator charges and a live transport sends.
    std::uint64_t bytes() const;
};

// Puts `coded` into a tensor field and its coding.
void setCoded(at::Tensor &field, TensorCoding &coding, Coded coded);
// The Coded a field stands for (its values, scales, indices and frame).
Coded codedOf(const at::Tensor &field, const TensorCoding &coding);
// Puts batch-norm statistics into m.buffers, coded as statisticsCodec says
// for a message of the traffic class whose codec is `classSpec`.
void setBatchNormStats(Message &m, const at::Tensor &stats, const CodecSpec &classSpec);
// Replaces every coded tensor field of `m` with the fp32 tensor it stands
// for (what a receiver's transport does before the node sees it).
void decodePayloads(Message &m);

} // namespace synaptic::engine
