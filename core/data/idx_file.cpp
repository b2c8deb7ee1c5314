#include "idx_file.h"

#include "data_error.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace synaptic::data {

namespace {

constexpr std::uint8_t kUnsignedByteType = 0x08;
// A 60000 x 28 x 28 file is 47 MB; anything announcing more than this is a
// corrupt or hostile header, not a dataset we want to allocate for.
constexpr std::uint64_t kMaxPayloadBytes = 1ull << 31;

struct GzCloser {
    void operator()(gzFile_s *f) const { gzclose(f); }
};

std::uint32_t bigEndian32(const std::uint8_t *p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
           std::uint32_t(p[3]);
}

// Reads up to `size` bytes; returns how many were read. gzread handles both
// gzip and uncompressed files transparently.
std::size_t readSome(gzFile file, std::uint8_t *out, std::size_t size, const std::string &path) {
    std::size_t total = 0;
    while (total < size) {
        const auto chunk = static_cast<unsigned>(std::min<std::size_t>(size - total, 1u << 30));
        const int n = gzread(file, out + total, chunk);
        if (n < 0) {
            int errnum = 0;
            const char *msg = gzerror(file, &errnum);
            throw DataError(path, std::string("corrupt gzip stream (") + (msg ? msg : "unknown") + ")");
        }
        if (n == 0)
            break;
        total += static_cast<std::size_t>(n);
    }
    return total;
}

} // namespace

std::size_t IdxFile::itemSize() const {
    std::size_t size = 1;
    for (std::size_t i = 1; i < dims.size(); ++i)
        size *= dims[i];
    return size;
}

IdxFile readIdxFile(const std::string &path, int expectedRank) {
    if (!std::filesystem::exists(path))
        throw DataError(path, "file not found");
    std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
    if (!file)
        throw DataError(path, "cannot open file");

    std::uint8_t magic[4] = {};
    if (readSome(file.get(), magic, 4, path) != 4)
        throw DataError(path, "file too short for an IDX header (need 4 magic bytes)");
    if (magic[0] != 0 || magic[1] != 0)
        throw DataError(path, "bad IDX magic number: first two bytes must be zero");
    if (magic[2] != kUnsignedByteType) {
        char type[8];
        std::snprintf(type, sizeof type, "0x%02X", magic[2]);
        throw DataError(path, std::string("unsupported IDX element type ") + type + " (only unsigned byte, 0x08)");
    }
    if (magic[3] != expectedRank)
        throw DataError(path, "IDX rank is " + std::to_string(magic[3]) + ", expected " +
                                  std::to_string(expectedRank));

    IdxFile idx;
    std::uint64_t payload = 1;
    for (int i = 0; i < expectedRank; ++i) {
        std::uint8_t raw[4];
        if (readSome(file.get(), raw, 4, path) != 4)
            throw DataError(path, "truncated IDX header (dimension " + std::to_string(i) + " missing)");
        const std::uint32_t dim = bigEndian32(raw);
        if (dim == 0)
            throw DataError(path, "IDX dimension " + std::to_string(i) + " is zero");
        idx.dims.push_back(dim);
        payload *= dim;
        if (payload > kMaxPayloadBytes)
            throw DataError(path, "IDX header announces an implausibly large payload");
    }

    idx.bytes.resize(payload);
    const std::size_t got = readSome(file.get(), idx.bytes.data(), payload, path);
    if (got != payload)
        throw DataError(path, "truncated: header announces " + std::to_string(payload) + " data bytes, file has " +
                                  std::to_string(got));
    std::uint8_t extra;
    if (readSome(file.get(), &extra, 1, path) != 0)
        throw DataError(path, "trailing bytes after the " + std::to_string(payload) + " announced data bytes");
    return idx;
}

} // namespace synaptic::data
