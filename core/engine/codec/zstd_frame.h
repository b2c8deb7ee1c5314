#pragma once

// The codecs' optional entropy stage (issue 14): a codec's values, already
// coded, squeezed losslessly by zstd before they go on the wire. Int8 values
// carry about seven bits of information in their eight (a max-scaled chunk
// of a bell-shaped delta), so a byte coder takes back what int8 leaves.
#include <cstddef>
#include <cstdint>
#include <string>

namespace synaptic::engine {

// The level every sender uses. A frame's size then depends only on the
// bytes and the libzstd version (and an int8 tensor's bytes on the device
// that coded it): the simulator charges what this build's zstd would send,
// and peers built against another libzstd may send a few bytes more or less.
inline constexpr int kZstdLevel = 3;

// Whether this build has zstd (an engine-only build may lack libzstd-dev);
// without it a "+zstd" codec is refused when it is parsed.
bool zstdAvailable();

// One zstd frame holding `size` bytes, with the content size in its header.
std::string zstdPack(const void *data, std::size_t size);

// Unpacks one frame holding exactly `size` bytes into `out` (which has room
// for them). Throws std::invalid_argument saying what is wrong (not a zstd
// frame: skippable and legacy ones included; no content size or another in
// its header; truncated, or followed by other bytes; a block that does not
// decode, found while writing: `out` may then hold a part). Frames carry no
// checksum (the transport has its own), so a flipped bit inside a block may
// decode to other bytes without an error.
void zstdUnpack(const std::string &frame, void *out, std::uint64_t size);
// The libzstd version this build runs ("1.5.4"): frame sizes follow it.
std::string zstdVersion();

} // namespace synaptic::engine
