#pragma once

// The names of the codecs, torch-free so configs and the app can name them
// without LibTorch's headers (codec.h does the work).
#include <string>

namespace synaptic::engine {

// How a flat fp32 tensor travels (issue 14): raw, as fp16, as int8 with one
// fp32 scale per chunk (INTELLECT-1's int8 all-reduce), or as its k largest
// magnitudes with their positions (Deep Gradient Compression; the sender
// keeps what it left out in an ErrorFeedback residual).
enum class Codec { Fp32, Fp16, Int8, TopK };

struct CodecSpec {
    Codec codec = Codec::Fp32;
    double topkFraction = 0.01; // TopK: share of the elements kept (at least one)
    // Lossless entropy stage after the codec (zstd_frame.h): the values go
    // on the wire as one zstd frame. Chosen per traffic class like the codec.
    bool zstd = false;
    bool operator==(const CodecSpec &) const = default;
};

// "fp32", "fp16", "int8", "topk" or "topk:F" (F the kept fraction, 0 < F <= 1),
// the lossy ones optionally followed by "+zstd". Throws std::invalid_argument naming the
// text otherwise (and for "+zstd" in a build without zstd).
CodecSpec parseCodec(const std::string &text);
std::string codecName(const CodecSpec &spec);
// Why a zstd stage may not follow `spec` ("" if it may): fp32, a stage
// already there, or a build without zstd.
std::string zstdRefusal(const CodecSpec &spec);

} // namespace synaptic::engine
