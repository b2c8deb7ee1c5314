#include "message_codec.h"

#include "tensor_codec.h"

namespace synaptic::rpc {

namespace e = synaptic::engine;

namespace {

void encodeIfDefined(const at::Tensor &t, v1::Tensor *(v1::ShardItem::*mut)(), v1::ShardItem &into) {
    if (t.defined())
        encodeTensor(t, (into.*mut)());
}

v1::ShardItem toProto(const e::ShardItem &s) {
    v1::ShardItem out;
    out.set_shard(s.shard);
    out.set_version(s.version);
    out.set_checksum(s.checksum);
    out.set_sequence(s.sequence);
    if (s.data.defined())
        encodeCodedTensor(s.data, s.coding, out.mutable_data());
    if (s.optimizer.m.defined() || s.optimizer.v.defined() || s.optimizer.step != 0) {
        auto *a = out.mutable_optimizer();
        if (s.optimizer.m.defined())
            encodeTensor(s.optimizer.m, a->mutable_m());
        if (s.optimizer.v.defined())
            encodeTensor(s.optimizer.v, a->mutable_v());
        a->set_step(s.optimizer.step);
    }
    for (auto id : s.contributionIds)
        out.add_contribution_ids(id);
    if (s.windows > 1) // the common 1 stays off the wire
        out.set_windows(s.windows);
    encodeIfDefined(s.base, &v1::ShardItem::mutable_base, out);
    out.set_base_version(s.baseVersion);
    encodeIfDefined(s.sentValues, &v1::ShardItem::mutable_sent_values, out);
    out.set_windows_since_sync(s.windowsSinceSync);
    out.set_sync_in_flight(s.syncInFlight);
    out.set_sync_sequence(s.syncSequence);
    out.set_finishing(s.finishing);
    out.set_delta(s.delta);
    out.set_delta_from(s.deltaFrom);
    if (s.residual.defined())
        encodeTensor(s.residual, out.mutable_residual());
    if (s.published.defined())
        encodeTensor(s.published, out.mutable_published());
    if (s.sentDelta.defined())
        encodeTensor(s.sentDelta, out.mutable_sent_delta());
    return out;
}

e::ShardItem fromProto(const v1::ShardItem &s, const std::string &where) {
    e::ShardItem out;
    if (s.shard() < 0)
        throw WireError(where + ".shard: negative shard id " + std::to_string(s.shard()));
    out.shard = s.shard();
    out.version = s.version();
    out.checksum = s.checksum();
    out.sequence = s.sequence();
    if (s.has_data())
        out.data = decodeCodedTensor(s.data(), where + ".data");
    if (s.has_optimizer()) {
        if (s.optimizer().has_m())
            out.optimizer.m = decodeTensor(s.optimizer().m(), where + ".optimizer.m");
        if (s.optimizer().has_v())
            out.optimizer.v = decodeTensor(s.optimizer().v(), where + ".optimizer.v");
        out.optimizer.step = s.optimizer().step();
    }
    out.contributionIds.assign(s.contribution_ids().begin(), s.contribution_ids().end());
    out.windows = std::max<std::uint32_t>(1, s.windows());
    if (s.has_base())
        out.base = decodeTensor(s.base(), where + ".base");
    out.baseVersion = s.base_version();
    if (s.has_sent_values())
        out.sentValues = decodeTensor(s.sent_values(), where + ".sent_values");
    out.windowsSinceSync = s.windows_since_sync();
    out.syncInFlight = s.sync_in_flight();
    out.syncSequence = s.sync_sequence();
    out.finishing = s.finishing();
    out.delta = s.delta();
    out.deltaFrom = s.delta_from();
    if (s.has_residual())
        out.residual = decodeTensor(s.residual(), where + ".residual");
    if (s.has_published())
        out.published = decodeTensor(s.published(), where + ".published");
    if (s.has_sent_delta())
        out.sentDelta = decodeTensor(s.sent_delta(), where + ".sent_delta");
    return out;
}

} // namespace

v1::NodeMessage toProto(const e::Message &m) {
    v1::NodeMessage out;
    out.set_kind(v1::MessageKind(int(m.kind)));
    out.set_from(m.from);
    out.set_to(m.to);
    out.set_round(m.round);
    if (m.lease.epoch != 0 || m.lease.expiresAt != 0 || std::signbit(m.lease.expiresAt)) {
        out.mutable_lease()->set_epoch(m.lease.epoch);
        out.mutable_lease()->set_expires_at(m.lease.expiresAt);
    }
    out.set_sent_at(m.sentAt);
    out.set_origin(m.origin);
    out.set_written_at(m.writtenAt);
    for (const auto &s : m.shards)
        *out.add_shards() = toProto(s);
    if (m.tensor.defined())
        encodeCodedTensor(m.tensor, m.tensorCoding, out.mutable_tensor());
    out.set_tensor_delta(m.tensorDelta);
    out.set_copy_version(m.copyVersion);
    if (m.buffers.defined())
        encodeCodedTensor(m.buffers, m.buffersCoding, out.mutable_buffers());
    out.set_chunk(m.chunk);
    out.set_last(m.last);
    out.set_join(m.join);
    for (int o : m.owners)
        out.add_owners(o);
    return out;
}

e::Message fromProto(const v1::NodeMessage &m) {
    e::Message out;
    if (m.kind() < 0 || m.kind() >= e::kMessageKinds)
        throw WireError("kind: unknown message kind " + std::to_string(int(m.kind())));
    out.kind = e::MessageKind(int(m.kind()));
    out.from = m.from();
    out.to = m.to();
    out.round = m.round();
    out.lease.epoch = m.lease().epoch();
    out.lease.expiresAt = m.lease().expires_at();
    out.sentAt = m.sent_at();
    out.origin = m.origin();
    out.writtenAt = m.written_at();
    for (int i = 0; i < m.shards_size(); ++i)
        out.shards.push_back(fromProto(m.shards(i), "shards[" + std::to_string(i) + "]"));
    if (m.has_tensor())
        out.tensor = decodeCodedTensor(m.tensor(), "tensor");
    out.tensorDelta = m.tensor_delta();
    out.copyVersion = m.copy_version();
    if (m.has_buffers()) {
        // Statistics travel raw or at fp16 (statisticsCodec); a peer that
        // sends them otherwise is not speaking this protocol.
        const auto &b = m.buffers();
        if ((b.codec() != v1::Tensor::RAW && b.codec() != v1::Tensor::FP16) || b.compression() != v1::Tensor::NONE)
            throw WireError("buffers: batch-norm statistics coded as " + v1::Tensor::Codec_Name(b.codec()) + " with " +
                            v1::Tensor::Compression_Name(b.compression()) + " (only RAW or FP16, never packed)");
        out.buffers = decodeCodedTensor(m.buffers(), "buffers");
    }
    out.chunk = m.chunk();
    out.last = m.last();
    out.join = m.join();
    out.owners.assign(m.owners().begin(), m.owners().end());
    return out;
}

} // namespace synaptic::rpc
