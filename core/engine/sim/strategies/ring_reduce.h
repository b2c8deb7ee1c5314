#pragma once

#include "core/engine/codec/codec.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/sim_node.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <vector>

namespace synaptic::engine {

// One member's side of a ring all-reduce among `members` (node ids in ring
// order): reduce-scatter then all-gather, 2(n-1) phases, each moving one
// chunk of 1/n of the tensor to the next member as a RingChunk. Several
// rings can run on one node (a region's ring, the ring of region leaders):
// `ringId` (0..9) keeps their messages apart. Every hop's chunk goes
// through `codec` (a lossy codec quantises each hop, as INTELLECT-1's int8
// all-reduce does; there is no error feedback inside a ring); each member
// keeps what it passes on in the all-gather, so all end with the same bits
// (coding decoded values again gives the same wire: tst_codec's
// reencodingDecodedValuesChangesNothing).
// Chunks that arrive before this member starts the step wait in an inbox.
class RingReduce {
public:
    RingReduce(int ringId, std::vector<int> members, int self);

    // Sums `vec` (1-D fp32) across the members for `step`; true when done
    // at once (a ring of one). Only its first `codedLength` elements go
    // through the codec; the rest (batch-norm statistics, which a top-k
    // codec would zero) travel as statisticsCodec says: fp16 beside a
    // lossy codec, fp32 beside fp32.
    bool start(std::uint64_t step, at::Tensor vec, std::int64_t codedLength, const CodecSpec &codec, Outbox &out);
    // A RingChunk whose ringOf() is this ring's id; true when this member's
    // reduction finished with it (result() holds the sum).
    bool onChunk(Message &&m, Outbox &out);
    bool active() const { return m_active; }
    const at::Tensor &result() const { return m_vec; }
    int size() const { return int(m_members.size()); }

    static int ringOf(const Message &m) { return int((m.round / 100) % 10); }

private:
    std::uint64_t key(std::uint64_t step, int phase) const;
    std::pair<std::int64_t, std::int64_t> chunk(int c) const;
    int mod(int x) const { return ((x % size()) + size()) % size(); }
    void sendPhase(Outbox &out);
    bool advance(Outbox &out);

    int m_ringId;
    std::vector<int> m_members;
    int m_index = 0; // this member's place in the ring
    CodecSpec m_codec;
    std::int64_t m_codedLength = 0;
    std::uint64_t m_step = 0;
    int m_phase = 0;
    bool m_active = false;
    at::Tensor m_vec;
    std::map<std::uint64_t, Message> m_inbox;
};

} // namespace synaptic::engine
