#include "codec_spec.h"

#include <cstdio>
#include <stdexcept>

namespace synaptic::engine {

CodecSpec parseCodec(const std::string &text) {
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
        throw std::invalid_argument("unknown codec '" + text + "' (fp32, fp16, int8, topk or topk:FRACTION)");
    }
    return spec;
}

std::string codecName(const CodecSpec &spec) {
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

} // namespace synaptic::engine
