#pragma once

#include "codec_spec.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>

namespace synaptic::engine {

// Elements per int8 scale: small enough that one outlier costs a chunk of
// precision, not the tensor's; the scale adds 4/kInt8Chunk bytes per element.
inline constexpr std::int64_t kInt8Chunk = 256;

// A tensor as the codec puts it on the wire. For Fp32 `values` is the
// tensor itself; otherwise `values` is fp16 (Fp16), int8 (Int8) or the kept
// fp32 values (TopK), `scales` the int8 chunk scales, `indices` the TopK
// positions (int32, ascending), and `numel` the decoded length. With the
// spec's zstd stage, `packed` is the zstd frame of the values' bytes: what
// the wire carries in their place (the values stay, for decoding here).
struct Coded {
    Codec codec = Codec::Fp32;
    std::int64_t numel = 0;
    at::Tensor values;
    at::Tensor scales;
    at::Tensor indices;
    std::shared_ptr<const std::string> packed;
};

// Encodes a 1-D fp32 tensor (any device; the result is on the same device).
Coded encode(const at::Tensor &flat, const CodecSpec &spec);
// The fp32 tensor `coded` stands for (zeros where TopK left elements out).
at::Tensor decode(const Coded &coded);
// What the codec's payload takes on the wire in bytes (values, or their zstd
// frame when packed; scales; indices), without the protobuf framing around it.
std::uint64_t payloadBytes(const Coded &coded);

// How batch-norm statistics travel beside a tensor whose traffic class uses
// `classSpec`: fp32 beside fp32, fp16 beside any lossy codec. They are
// running values, not updates, so int8's per-chunk flattening, top-k's
// zeros and error feedback do not fit them, and fp16's 2^-11 relative step
// (an absolute 2^-24 below 6e-5, far under batch-norm's eps) is far below
// what evaluation notices. Statistics fp16 cannot hold (an element beyond
// its range, or not finite) stay fp32, as does an empty tensor (a model
// without batch-norm). No zstd stage: a few hundred fp16 values hardly
// compress. Reads one value back from the tensor's device (a sync on a
// GPU, once per message: negligible beside the message's own copy).
CodecSpec statisticsCodec(const at::Tensor &stats, const CodecSpec &classSpec);
// Encodes batch-norm statistics (1-D fp32) as statisticsCodec says.
Coded encodeStatistics(const at::Tensor &stats, const CodecSpec &classSpec);

} // namespace synaptic::engine
