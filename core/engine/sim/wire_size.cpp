#include "wire_size.h"

#include <cstring>

namespace synaptic::engine {

std::uint64_t varintBytes(std::uint64_t v) {
    std::uint64_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

namespace {

std::uint64_t varint(std::uint64_t v) { return varintBytes(v); }
// int32 fields sign-extend negative values to ten bytes.
std::uint64_t int32Field(std::int32_t v) { return v == 0 ? 0 : 1 + varint(std::uint64_t(std::int64_t(v))); }
std::uint64_t uint64Field(std::uint64_t v) { return v == 0 ? 0 : 1 + varint(v); }
std::uint64_t sint32Field(std::int32_t v) {
    const std::uint32_t zigzag = (std::uint32_t(v) << 1) ^ std::uint32_t(v >> 31);
    return zigzag == 0 ? 0 : 1 + varint(zigzag);
}
std::uint64_t boolField(bool v) { return v ? 2 : 0; }
// proto3 leaves out a double whose bits are all zero (0.0, not -0.0).
std::uint64_t doubleField(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return bits == 0 ? 0 : 9;
}
// A length-delimited field (submessage, bytes, packed repeated) of `size` bytes.
std::uint64_t delimited(std::uint64_t size) { return 1 + varint(size) + size; }

// `packed`: the zstd frame that stands in for the data (then compression = 8).
std::uint64_t tensorSize(const at::Tensor &t, const std::string *packed = nullptr) {
    std::uint64_t n = 2; // dtype: every dtype we send has a non-zero enum value
    const auto dims = t.sizes();
    std::uint64_t shape = 0;
    for (auto d : dims)
        shape += varint(std::uint64_t(d));
    if (!dims.empty())
        n += delimited(shape);
    const std::uint64_t data = packed ? std::uint64_t(packed->size()) : std::uint64_t(t.numel()) * wireElementBytes(t);
    if (data > 0)
        n += delimited(data);
    if (packed)
        n += 2; // compression = ZSTD
    return n;
}
std::uint64_t tensorField(const at::Tensor &t) { return t.defined() ? delimited(tensorSize(t)) : 0; }

// A coded tensor (issue 14): the codec's values as the tensor (or their zstd
// frame as its data), then codec = 4, numel = 5, scales = 6 (fp32 bytes),
// indices = 7 (int32 bytes), compression = 8.
std::uint64_t bytesField(const at::Tensor &t) {
    const std::uint64_t n = t.defined() ? std::uint64_t(t.numel()) * wireElementBytes(t) : 0;
    return n == 0 ? 0 : delimited(n);
}
std::uint64_t tensorField(const at::Tensor &t, const TensorCoding &c) {
    if (!t.defined())
        return 0;
    if (c.codec == Codec::Fp32)
        return tensorField(t);
    const std::uint64_t size = tensorSize(t, c.packed.get()) + 2 /* codec */ + uint64Field(std::uint64_t(c.numel)) +
                               bytesField(c.scales) + bytesField(c.indices);
    return delimited(size);
}

std::uint64_t adamField(const AdamState &a) {
    if (!a.m.defined() && !a.v.defined() && a.step == 0)
        return 0;
    const std::uint64_t size =
        tensorField(a.m) + tensorField(a.v) + (a.step == 0 ? 0 : 1 + varint(std::uint64_t(a.step)));
    return delimited(size);
}

std::uint64_t shardItemSize(const ShardItem &s) {
    std::uint64_t n = int32Field(s.shard) + uint64Field(s.version) + uint64Field(s.checksum) +
                      uint64Field(s.sequence) + tensorField(s.data, s.coding) + adamField(s.optimizer);
    if (!s.contributionIds.empty()) {
        std::uint64_t ids = 0;
        for (auto id : s.contributionIds)
            ids += varint(id);
        n += delimited(ids);
    }
    n += tensorField(s.base) + uint64Field(s.baseVersion) + tensorField(s.sentValues) +
         int32Field(s.windowsSinceSync) + boolField(s.syncInFlight) + uint64Field(s.syncSequence) +
         boolField(s.finishing) + boolField(s.delta) + (s.deltaFrom == 0 ? 0 : 2 + varint(s.deltaFrom)) +
         (s.residual.defined() ? 1 + tensorField(s.residual) : 0) +
         (s.published.defined() ? 1 + tensorField(s.published) : 0) + // fields 17, 18, 20: two-byte tags
         (s.sentDelta.defined() ? 1 + tensorField(s.sentDelta) : 0) +
         (s.windows > 1 ? 2 + varint(s.windows) : 0);                  // field 19, sent only above 1
    return n;
}

std::uint64_t leaseField(const Lease &l) {
    if (l.epoch == 0 && doubleField(l.expiresAt) == 0)
        return 0;
    return delimited(uint64Field(l.epoch) + doubleField(l.expiresAt));
}

} // namespace

std::uint64_t wireElementBytes(const at::Tensor &t) { return std::uint64_t(t.element_size()); }

std::uint64_t encodedSize(const Message &m) {
    std::uint64_t n = int32Field(int(m.kind)) + int32Field(m.from) + int32Field(m.to) + uint64Field(m.round) +
                      leaseField(m.lease) + doubleField(m.sentAt) + sint32Field(m.origin) +
                      doubleField(m.writtenAt);
    for (const auto &s : m.shards)
        n += delimited(shardItemSize(s));
    n += tensorField(m.tensor, m.tensorCoding) + tensorField(m.buffers, m.buffersCoding) + sint32Field(m.chunk) +
         boolField(m.last) + boolField(m.join) + (m.tensorDelta ? 3 : 0) +
         (m.copyVersion == 0 ? 0 : 2 + varint(m.copyVersion)); // fields 16, 17: two-byte tags
    if (!m.owners.empty()) {
        std::uint64_t owners = 0;
        for (int o : m.owners)
            owners += o < 0 ? 10 : varint(std::uint64_t(o));
        n += delimited(owners);
    }
    return n;
}

std::uint64_t tensorPayloadBytes(const Message &m) {
    std::uint64_t n = payloadBytes(codedOf(m.tensor, m.tensorCoding));
    for (const auto &s : m.shards)
        n += payloadBytes(codedOf(s.data, s.coding));
    return n;
}

std::uint64_t batchNormBytes(const Message &m) { return payloadBytes(codedOf(m.buffers, m.buffersCoding)); }

std::uint64_t tensorElements(const Message &m) {
    auto elements = [](const at::Tensor &t, const TensorCoding &c) -> std::uint64_t {
        return !t.defined() ? 0 : c.codec == Codec::Fp32 ? std::uint64_t(t.numel()) : std::uint64_t(c.numel);
    };
    std::uint64_t n = elements(m.tensor, m.tensorCoding);
    for (const auto &s : m.shards)
        n += elements(s.data, s.coding);
    return n;
}

} // namespace synaptic::engine
