#include "codec_spec.h"

#include "zstd_frame.h"

#include <cstdio>
#include <stdexcept>

namespace synaptic::engine {

namespace {
constexpr const char *kZstdSuffix = "+zstd";
} // namespace

std::string zstdRefusal(const CodecSpec &spec) {
    if (!zstdAvailable())
        return "this build has no zstd (install libzstd-dev and rebuild)";
    if (spec.zstd)
        return "\"+zstd\" may follow the codec once";
    // fp32 travels as a plain tensor (setCoded drops its coding, and the
    // wire refuses a compressed plain tensor): a stage here would be named
    // and never applied.
    if (spec.codec == Codec::Fp32)
        return "\"+zstd\" follows a lossy codec (fp16, int8, topk)";
    return "";
}

CodecSpec parseCodec(const std::string &text) {
    const std::string suffix = kZstdSuffix;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
        CodecSpec spec = parseCodec(text.substr(0, text.size() - suffix.size()));
        if (const std::string why = zstdRefusal(spec); !why.empty())
            throw std::invalid_argument("codec '" + text + "': " + why);
        spec.zstd = true;
        return spec;
    }
    CodecSpec spec;
    if (text == "fp32") spec.codec = Codec::Fp32;
    else if (text == "fp16") spec.codec = Codec::Fp16;
    else if (text == "int8") spec.codec = Codec::Int8;
    else if (text == "topk") spec.codec = Codec::TopK;
    else if (text.rfind("topk:", 0) == 0) {
        spec.codec = Codec::TopK;
        std::size_t used = 0;
        double f = 0;
        try {
            f = std::stod(text.substr(5), &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (used == 0 || used != text.size() - 5 || !(f > 0 && f <= 1))
            throw std::invalid_argument("codec '" + text + "': the top-k fraction must be a number in (0, 1]");
        spec.topkFraction = f;
    } else {
        throw std::invalid_argument("unknown codec '" + text +
                                    "' (fp32, fp16, int8, topk or topk:FRACTION, each optionally with +zstd)");
    }
    return spec;
}

namespace {
std::string baseCodecName(const CodecSpec &spec) {
    switch (spec.codec) {
    case Codec::Fp32: return "fp32";
    case Codec::Fp16: return "fp16";
    case Codec::Int8: return "int8";
    case Codec::TopK: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "topk:%g", spec.topkFraction);
        return buf;
    }
    }
    return "?";
}
} // namespace

std::string codecName(const CodecSpec &spec) {
    const std::string base = baseCodecName(spec);
    return spec.zstd ? base + kZstdSuffix : base;
}

} // namespace synaptic::engine
