#include "zstd_frame.h"

#include <stdexcept>

#ifdef SYNAPTIC_HAVE_ZSTD
#include <zstd.h>
#endif

namespace synaptic::engine {

#ifdef SYNAPTIC_HAVE_ZSTD

bool zstdAvailable() { return true; }

std::string zstdPack(const void *data, std::size_t size) {
    std::string out(ZSTD_compressBound(size), '\0');
    const std::size_t n = ZSTD_compress(out.data(), out.size(), data, size, kZstdLevel);
    if (ZSTD_isError(n))
        throw std::runtime_error("zstd could not pack " + std::to_string(size) + " bytes: " + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

void zstdUnpack(const std::string &frame, void *out, std::uint64_t size) {
    // Only a standard frame: a skippable one "holds" 0 bytes however long it
    // is, and legacy formats would reach old decoders.
    std::uint32_t magic = 0; // little-endian on the wire, whatever the host
    for (std::size_t i = 0; i < 4 && i < frame.size(); ++i)
        magic |= std::uint32_t(static_cast<unsigned char>(frame[i])) << (8 * i);
    if (frame.size() < 4 || magic != ZSTD_MAGICNUMBER)
        throw std::invalid_argument("not a zstd frame");
    const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR)
        throw std::invalid_argument("not a zstd frame");
    if (declared == ZSTD_CONTENTSIZE_UNKNOWN)
        throw std::invalid_argument("zstd frame without its content size");
    if (declared != size)
        throw std::invalid_argument("zstd frame holds " + std::to_string(declared) + " bytes, the tensor needs " +
                                    std::to_string(size));
    // Exactly one frame: bytes after it would ride along unread.
    const std::size_t frameSize = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
    if (ZSTD_isError(frameSize))
        throw std::invalid_argument(std::string("zstd frame is truncated or corrupt: ") + ZSTD_getErrorName(frameSize));
    if (frameSize != frame.size())
        throw std::invalid_argument("zstd frame is followed by " + std::to_string(frame.size() - frameSize) +
                                    " other bytes");
    const std::size_t n = ZSTD_decompress(out, std::size_t(size), frame.data(), frame.size());
    if (ZSTD_isError(n))
        throw std::invalid_argument(std::string("zstd frame is corrupt: ") + ZSTD_getErrorName(n));
    if (n != size)
        throw std::invalid_argument("zstd frame decoded to " + std::to_string(n) + " bytes, not " +
                                    std::to_string(size));
}

std::string zstdVersion() { return ZSTD_versionString(); }

#else

bool zstdAvailable() { return false; }

std::string zstdPack(const void *, std::size_t) {
    throw std::runtime_error("this build has no zstd (install libzstd-dev and rebuild)");
}

void zstdUnpack(const std::string &, void *, std::uint64_t) {
    throw std::invalid_argument("this build has no zstd to read a zstd frame (install libzstd-dev and rebuild)");
}

std::string zstdVersion() { return "none"; }

#endif

} // namespace synaptic::engine
