#include "tensor_codec.h"

#include "core/engine/codec/zstd_frame.h"

#include <ATen/ATen.h>

#include <bit>
#include <cstring>
#include <limits>

namespace synaptic::rpc {

// Raw bytes are written in the host's order; the format says little-endian.
static_assert(std::endian::native == std::endian::little,
              "synaptic.v1 tensors are little-endian: a big-endian host must byte-swap here");

namespace {

v1::Tensor::DType dtypeOf(at::ScalarType t) {
    switch (t) {
    case at::kFloat: return v1::Tensor::FLOAT32;
    case at::kHalf: return v1::Tensor::FLOAT16;
    case at::kChar: return v1::Tensor::INT8;
    case at::kLong: return v1::Tensor::INT64;
    default: throw WireError(std::string("tensor dtype ") + at::toString(t) + " has no wire encoding");
    }
}

at::ScalarType scalarOf(v1::Tensor::DType d, const std::string &field) {
    switch (d) {
    case v1::Tensor::FLOAT32: return at::kFloat;
    case v1::Tensor::FLOAT16: return at::kHalf;
    case v1::Tensor::INT8: return at::kChar;
    case v1::Tensor::INT64: return at::kLong;
    default: throw WireError(field + ": unknown tensor dtype " + std::to_string(int(d)));
    }
}

} // namespace

void encodeTensor(const at::Tensor &t, v1::Tensor *out) {
    const auto cpu = t.to(at::kCPU).contiguous();
    out->set_dtype(dtypeOf(cpu.scalar_type()));
    for (auto d : cpu.sizes())
        out->add_shape(d);
    const auto bytes = std::size_t(cpu.numel()) * cpu.element_size();
    if (bytes > 0)
        out->set_data(static_cast<const char *>(cpu.data_ptr()), bytes);
}

namespace {

std::uint64_t elementsOf(const v1::Tensor &t, const std::string &field, std::vector<std::int64_t> *shape) {
    std::uint64_t numel = 1;
    for (auto d : t.shape()) {
        if (d < 0)
            throw WireError(field + ": negative dimension " + std::to_string(d));
        if (d > 0 && numel > std::numeric_limits<std::uint64_t>::max() / std::uint64_t(d) / 8)
            throw WireError(field + ": shape too large");
        numel *= std::uint64_t(d);
        if (shape)
            shape->push_back(d);
    }
    return numel;
}

// The tensor `t` describes, its raw bytes in `data` (t.data(), or what its
// zstd frame holds).
at::Tensor tensorFromBytes(const v1::Tensor &t, const std::string &data, const std::string &field, bool finite) {
    const auto type = scalarOf(t.dtype(), field);
    std::vector<std::int64_t> shape;
    const std::uint64_t numel = elementsOf(t, field, &shape);
    const std::uint64_t elementBytes = at::elementSize(type);
    if (std::uint64_t(data.size()) != numel * elementBytes)
        throw WireError(field + ": " + std::to_string(data.size()) + " bytes of data for a shape of " +
                        std::to_string(numel) + " elements of " + std::to_string(elementBytes) + " bytes");
    auto out = at::empty(shape, at::TensorOptions().dtype(type));
    if (numel > 0)
        std::memcpy(out.data_ptr(), data.data(), data.size());
    if (finite && at::isFloatingType(type) && numel > 0 && !at::isfinite(out).all().item<bool>())
        throw WireError(field + ": NaN or Inf values");
    return out;
}

} // namespace

at::Tensor decodeTensor(const v1::Tensor &t, const std::string &field, bool finite) {
    if (t.compression() != v1::Tensor::NONE)
        throw WireError(field + ".compression: " + v1::Tensor::Compression_Name(t.compression()) +
                        " (" + std::to_string(int(t.compression())) + ") on a plain tensor, which travels uncompressed");
    return tensorFromBytes(t, t.data(), field, finite);
}

namespace {

template <typename T>
at::Tensor rawVector(const std::string &bytes, at::ScalarType type, const std::string &field) {
    if (bytes.size() % sizeof(T) != 0)
        throw WireError(field + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                        std::to_string(sizeof(T)) + "-byte elements");
    auto out = at::empty({std::int64_t(bytes.size() / sizeof(T))}, at::TensorOptions().dtype(type));
    if (!bytes.empty())
        std::memcpy(out.data_ptr(), bytes.data(), bytes.size());
    return out;
}

void putRaw(const at::Tensor &t, std::string *out) {
    if (!t.defined() || t.numel() == 0)
        return;
    const auto cpu = t.to(at::kCPU).contiguous();
    out->assign(static_cast<const char *>(cpu.data_ptr()), std::size_t(cpu.numel()) * cpu.element_size());
}

} // namespace

namespace {

// A coded tensor's values, out of their zstd frame if they came in one. The
// frame may only hold what dtype and shape call for, and the shape no more
// elements than numel (itself bounded): a small frame cannot make the
// receiver allocate more than a plain tensor of that size would.
at::Tensor codedValues(const v1::Tensor &t, std::int64_t numel, const std::string &field) {
    switch (t.compression()) {
    case v1::Tensor::NONE: return tensorFromBytes(t, t.data(), field, true);
    case v1::Tensor::ZSTD: {
        const auto type = scalarOf(t.dtype(), field);
        std::vector<std::int64_t> shape;
        const std::uint64_t elements = elementsOf(t, field, &shape);
        if (elements > std::uint64_t(numel))
            throw WireError(field + ": a shape of " + std::to_string(elements) + " coded values for numel " +
                            std::to_string(numel));
        auto out = at::empty(shape, at::TensorOptions().dtype(type));
        try {
            engine::zstdUnpack(t.data(), out.data_ptr(), elements * at::elementSize(type));
        } catch (const std::invalid_argument &e) {
            throw WireError(field + ".data: " + e.what());
        }
        if (at::isFloatingType(type) && elements > 0 && !at::isfinite(out).all().item<bool>())
            throw WireError(field + ": NaN or Inf values");
        return out;
    }
    default: throw WireError(field + ".compression: unknown compression " + std::to_string(int(t.compression())));
    }
}

} // namespace

void encodeCodedTensor(const at::Tensor &values, const engine::TensorCoding &coding, v1::Tensor *out) {
    if (coding.packed) {
        // The values' zstd frame goes in their place: dtype and shape say
        // what it holds (no copy of the raw values is made).
        out->set_dtype(dtypeOf(values.scalar_type()));
        for (auto d : values.sizes())
            out->add_shape(d);
        out->set_data(*coding.packed);
        out->set_compression(v1::Tensor::ZSTD);
    } else {
        encodeTensor(values, out);
    }
    switch (coding.codec) {
    case engine::Codec::Fp32: return;
    case engine::Codec::Fp16: out->set_codec(v1::Tensor::FP16); break;
    case engine::Codec::Int8: out->set_codec(v1::Tensor::INT8_CHUNKED); break;
    case engine::Codec::TopK: out->set_codec(v1::Tensor::TOP_K); break;
    }
    out->set_numel(coding.numel);
    putRaw(coding.scales, out->mutable_scales());
    putRaw(coding.indices, out->mutable_indices());
}

at::Tensor decodeCodedTensor(const v1::Tensor &t, const std::string &field) {
    if (t.codec() == v1::Tensor::RAW)
        return decodeTensor(t, field);
    engine::Coded c;
    c.numel = t.numel();
    // A top-k tensor's numel costs the sender nothing: without a bound, a
    // few bytes could make the receiver allocate terabytes.
    if (c.numel < 0 || c.numel > kMaxCodedElements)
        throw WireError(field + ".numel: " + std::to_string(c.numel) + " is out of range (at most " +
                        std::to_string(kMaxCodedElements) + ")");
    auto expectDtype = [&](v1::Tensor::DType d, const char *name) {
        if (t.dtype() != d)
            throw WireError(field + ": codec " + v1::Tensor::Codec_Name(t.codec()) + " needs " + name + " values");
    };
    switch (t.codec()) {
    case v1::Tensor::FP16:
        expectDtype(v1::Tensor::FLOAT16, "FLOAT16");
        c.codec = engine::Codec::Fp16;
        break;
    case v1::Tensor::INT8_CHUNKED:
        expectDtype(v1::Tensor::INT8, "INT8");
        c.codec = engine::Codec::Int8;
        break;
    case v1::Tensor::TOP_K:
        expectDtype(v1::Tensor::FLOAT32, "FLOAT32");
        c.codec = engine::Codec::TopK;
        break;
    default: throw WireError(field + ".codec: unknown codec " + std::to_string(int(t.codec())));
    }
    c.values = codedValues(t, c.numel, field);
    if (c.values.dim() != 1)
        throw WireError(field + ": coded values must be one-dimensional");
    if (c.codec != engine::Codec::TopK && c.values.numel() != c.numel)
        throw WireError(field + ": " + std::to_string(c.values.numel()) + " coded values for numel " +
                        std::to_string(c.numel));
    if (c.codec == engine::Codec::Int8) {
        c.scales = rawVector<float>(t.scales(), at::kFloat, field + ".scales");
        const std::int64_t chunks = (c.numel + engine::kInt8Chunk - 1) / engine::kInt8Chunk;
        if (c.scales.numel() != chunks)
            throw WireError(field + ".scales: " + std::to_string(c.scales.numel()) + " scales for " +
                            std::to_string(chunks) + " chunks");
        if (chunks > 0 && !at::isfinite(c.scales).all().item<bool>())
            throw WireError(field + ".scales: NaN or Inf values");
    }
    if (c.codec == engine::Codec::TopK) {
        c.indices = rawVector<std::int32_t>(t.indices(), at::kInt, field + ".indices");
        const auto k = c.indices.numel();
        if (k != c.values.numel())
            throw WireError(field + ".indices: " + std::to_string(k) + " positions for " +
                            std::to_string(c.values.numel()) + " values");
        if (k > 0) {
            const bool inRange = (c.indices.min().item<int>() >= 0) && (c.indices.max().item<std::int64_t>() < c.numel);
            const bool ascending = k == 1 || (c.indices.slice(0, 1) > c.indices.slice(0, 0, k - 1)).all().item<bool>();
            if (!inRange || !ascending)
                throw WireError(field + ".indices: positions must be ascending and below numel " +
                                std::to_string(c.numel));
        }
    }
    at::Tensor out = engine::decode(c);
    // Finite scales can still overflow (127 x 1e38): check what the node gets.
    if (out.numel() > 0 && !at::isfinite(out).all().item<bool>())
        throw WireError(field + ": decodes to NaN or Inf values");
    return out;
}

} // namespace synaptic::rpc
