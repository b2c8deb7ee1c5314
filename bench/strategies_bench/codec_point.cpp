#include "codec_point.h"

#include <stdexcept>

namespace synaptic::bench {

engine::CodecKnobs codecPoint(const std::string &name) {
    engine::CodecKnobs k;
    if (name == "mixed")
        return codecPoint("fp16/fp16/int8");
    const auto a = name.find('/');
    if (a == std::string::npos) {
        k.gradients = k.values = k.center = engine::parseCodec(name);
        return k;
    }
    const auto b = name.find('/', a + 1);
    if (b == std::string::npos || name.find('/', b + 1) != std::string::npos)
        throw std::invalid_argument("codec point '" + name + "': expected one codec or GRADIENTS/VALUES/CENTER");
    k.gradients = engine::parseCodec(name.substr(0, a));
    k.values = engine::parseCodec(name.substr(a + 1, b - a - 1));
    k.center = engine::parseCodec(name.substr(b + 1));
    return k;
}

} // namespace synaptic::bench
