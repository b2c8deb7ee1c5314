#include "codec.h"

#include "zstd_frame.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace synaptic::engine {

namespace {

// Pads `flat` with zeros to whole chunks and views it as [chunks, kInt8Chunk].
at::Tensor chunked(const at::Tensor &flat) {
    const std::int64_t n = flat.numel();
    const std::int64_t chunks = (n + kInt8Chunk - 1) / kInt8Chunk;
    auto padded = at::zeros({chunks * kInt8Chunk}, flat.options());
    padded.slice(0, 0, n).copy_(flat);
    return padded.view({chunks, kInt8Chunk});
}

// The zstd frame of `values`' bytes (CPU, contiguous, as the wire lays them out).
std::shared_ptr<const std::string> packValues(const at::Tensor &values) {
    const auto cpu = values.to(at::kCPU).contiguous();
    return std::make_shared<const std::string>(
        zstdPack(cpu.data_ptr(), std::size_t(cpu.numel()) * std::size_t(cpu.element_size())));
}

} // namespace

Coded encode(const at::Tensor &flat, const CodecSpec &spec) {
    if (flat.dim() != 1 || flat.scalar_type() != at::kFloat)
        throw std::invalid_argument("codec: expects a 1-D fp32 tensor");
    Coded c;
    c.codec = spec.codec;
    c.numel = flat.numel();
    switch (spec.codec) {
    case Codec::Fp32:
        c.values = flat;
        break;
    case Codec::Fp16:
        c.values = flat.to(at::kHalf);
        break;
    case Codec::Int8: {
        if (c.numel == 0) {
            c.values = at::empty({0}, flat.options().dtype(at::kChar));
            c.scales = at::empty({0}, flat.options());
            break;
        }
        const auto rows = chunked(flat);
        // Symmetric per-chunk scale: the chunk's largest magnitude maps to 127.
        auto scales = std::get<0>(rows.abs().max(1)).div_(127.0);
        // A chunk holding values within a step of FLT_MAX would decode its
        // largest to 127·scale = inf: one ulp less keeps it finite. A chunk
        // holding inf keeps its inf scale and decodes as before.
        scales = at::where(scales.isfinite().logical_and(scales.mul(127.0).isinf()),
                           at::nextafter(scales, at::zeros_like(scales)), scales);
        const auto safe = at::where(scales > 0, scales, at::ones_like(scales));
        auto q = rows.div(safe.unsqueeze(1)).round_().clamp_(-127, 127).to(at::kChar);
        c.values = q.view({-1}).slice(0, 0, c.numel).contiguous();
        c.scales = scales;
        break;
    }
    case Codec::TopK: {
        const std::int64_t k =
            std::clamp<std::int64_t>(std::int64_t(std::ceil(spec.topkFraction * double(c.numel))), 1, std::max<std::int64_t>(c.numel, 1));
        if (c.numel == 0) {
            c.values = flat;
            c.indices = at::empty({0}, flat.options().dtype(at::kInt));
            break;
        }
        auto idx = std::get<1>(flat.abs().topk(k, 0, true, false));
        idx = std::get<0>(idx.sort());
        c.values = flat.index_select(0, idx);
        c.indices = idx.to(at::kInt);
        break;
    }
    }
    if (spec.zstd && spec.codec != Codec::Fp32) // fp32 travels as a plain tensor (zstdRefusal)
        c.packed = packValues(c.values);
    return c;
}

at::Tensor decode(const Coded &c) {
    switch (c.codec) {
    case Codec::Fp32: return c.values;
    case Codec::Fp16: return c.values.to(at::kFloat);
    case Codec::Int8: {
        if (c.numel == 0)
            return at::empty({0}, c.scales.options());
        const std::int64_t chunks = c.scales.numel();
        auto padded = at::zeros({chunks * kInt8Chunk}, c.scales.options());
        padded.slice(0, 0, c.numel).copy_(c.values.to(at::kFloat));
        return padded.view({chunks, kInt8Chunk}).mul_(c.scales.unsqueeze(1)).view({-1}).slice(0, 0, c.numel).contiguous();
    }
    case Codec::TopK: {
        auto out = at::zeros({c.numel}, c.values.options());
        if (c.indices.numel() > 0)
            out.index_copy_(0, c.indices.to(at::kLong), c.values);
        return out;
    }
    }
    throw std::invalid_argument("codec: unknown codec");
}

std::uint64_t payloadBytes(const Coded &c) {
    auto bytes = [](const at::Tensor &t) {
        return t.defined() ? std::uint64_t(t.numel()) * std::uint64_t(t.element_size()) : 0;
    };
    const std::uint64_t values = c.packed ? std::uint64_t(c.packed->size()) : bytes(c.values);
    return values + bytes(c.scales) + bytes(c.indices);
}

CodecSpec statisticsCodec(const at::Tensor &stats, const CodecSpec &classSpec) {
    if (classSpec.codec == Codec::Fp32 || !stats.defined() || stats.numel() == 0)
        return {};
    // Largest finite fp16 value; NaN compares false and keeps fp32 too.
    constexpr double kFp16Max = 65504.0;
    const bool fits = stats.abs().max().le(kFp16Max).item<bool>();
    return fits ? CodecSpec{Codec::Fp16} : CodecSpec{};
}

Coded encodeStatistics(const at::Tensor &stats, const CodecSpec &classSpec) {
    return encode(stats, statisticsCodec(stats, classSpec));
}

} // namespace synaptic::engine
