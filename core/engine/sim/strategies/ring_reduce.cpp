#include "ring_reduce.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <stdexcept>

namespace synaptic::engine {

RingReduce::RingReduce(int ringId, std::vector<int> members, int self) : m_ringId(ringId), m_members(std::move(members)) {
    const auto it = std::find(m_members.begin(), m_members.end(), self);
    if (it == m_members.end() || ringId < 0 || ringId > 9)
        throw std::invalid_argument("RingReduce: node is not a member of its ring");
    if (m_members.size() > 50) // 2(n-1) phases must fit the two digits key() gives them
        throw std::invalid_argument("RingReduce: at most 50 members in a ring");
    m_index = int(it - m_members.begin());
}

std::uint64_t RingReduce::key(std::uint64_t step, int phase) const {
    return step * 1000 + std::uint64_t(m_ringId) * 100 + std::uint64_t(phase);
}

std::pair<std::int64_t, std::int64_t> RingReduce::chunk(int c) const {
    const std::int64_t n = m_vec.numel();
    return {n * c / size(), n * (c + 1) / size()};
}

bool RingReduce::start(std::uint64_t step, at::Tensor vec, std::int64_t codedLength, const CodecSpec &codec,
                       Outbox &out) {
    m_vec = std::move(vec);
    m_codedLength = codedLength;
    m_step = step;
    m_codec = codec;
    m_phase = 0;
    if (size() == 1)
        return true;
    m_active = true;
    sendPhase(out);
    return advance(out);
}

bool RingReduce::onChunk(Message &&m, Outbox &out) {
    m_inbox[m.round] = std::move(m);
    return advance(out);
}

void RingReduce::sendPhase(Outbox &out) {
    const int n = size();
    const int p = m_phase;
    const int c = p < n - 1 ? mod(m_index - p) : mod(m_index + 1 - (p - (n - 1)));
    const auto [b, e] = chunk(c);
    Message m;
    m.kind = MessageKind::RingChunk;
    m.to = m_members[std::size_t(mod(m_index + 1))];
    m.round = key(m_step, p);
    m.chunk = c;
    const std::int64_t split = std::clamp(m_codedLength, b, e);
    auto coded = m_vec.slice(0, b, split);
    Coded wire = encode(coded.clone(), m_codec);
    // In the all-gather every member keeps what the others get for the
    // chunk it passes on, so all end with the same bits.
    const bool gather = p >= n - 1;
    if (gather && m_codec.codec != Codec::Fp32)
        coded.copy_(decode(wire));
    setCoded(m.tensor, m.tensorCoding, std::move(wire));
    if (split < e) {
        auto stats = m_vec.slice(0, split, e);
        Coded statsWire = encodeStatistics(stats.clone(), m_codec);
        if (gather && statsWire.codec != Codec::Fp32)
            stats.copy_(decode(statsWire));
        setCoded(m.buffers, m.buffersCoding, std::move(statsWire));
    }
    out.send(std::move(m));
}

bool RingReduce::advance(Outbox &out) {
    const int n = size();
    while (m_active) {
        auto it = m_inbox.find(key(m_step, m_phase));
        if (it == m_inbox.end())
            return false;
        const auto [b, e] = chunk(it->second.chunk);
        const at::Tensor received = it->second.buffers.defined()
                                        ? at::cat({it->second.tensor, it->second.buffers})
                                        : it->second.tensor;
        if (received.numel() != e - b)
            throw std::logic_error("RingReduce: a chunk of the wrong length");
        auto slice = m_vec.slice(0, b, e);
        if (m_phase < n - 1)
            slice.add_(received);
        else
            slice.copy_(received);
        m_inbox.erase(it);
        if (++m_phase < 2 * (n - 1)) {
            sendPhase(out);
            continue;
        }
        m_active = false;
        return true;
    }
    return false;
}

} // namespace synaptic::engine
