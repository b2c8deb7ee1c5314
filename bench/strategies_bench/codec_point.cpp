#include "codec_point.h"

#include <stdexcept>

namespace synaptic::bench {

namespace {

engine::CodecKnobs parsePoint(const std::string &name) {
    engine::CodecKnobs k;
    if (name == "mixed")
        return parsePoint("fp16/fp16/int8");
    if (name == "mixed+zstd")
        return parsePoint("fp16/fp16/int8+zstd");
    const auto a = name.find('/');
    if (a == std::string::npos) {
        k.gradients = k.values = k.center = engine::parseCodec(name);
        return k;
    }
    const auto b = name.find('/', a + 1);
    if (b == std::string::npos || name.find('/', b + 1) != std::string::npos)
        throw std::invalid_argument("expected one codec or GRADIENTS/VALUES/CENTER");
    k.gradients = engine::parseCodec(name.substr(0, a));
    k.values = engine::parseCodec(name.substr(a + 1, b - a - 1));
    k.center = engine::parseCodec(name.substr(b + 1));
    return k;
}

} // namespace

engine::CodecKnobs codecPoint(const std::string &name) {
    try {
        return parsePoint(name);
    } catch (const std::invalid_argument &e) {
        // The point as the user typed it, then what is wrong in it.
        throw std::invalid_argument("codec point '" + name + "': " + e.what());
    }
}

void applyCodecPoint(const std::string &name, engine::CodecKnobs &codecs) {
    const engine::CodecKnobs point = codecPoint(name);
    codecs.gradients = point.gradients;
    codecs.values = point.values;
    codecs.center = point.center;
}

} // namespace synaptic::bench
