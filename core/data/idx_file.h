#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::data {

// One IDX file (http://yann.lecun.com/exdb/mnist/ format) of unsigned bytes:
// dims[0] items, each of dims[1] * dims[2] * ... bytes.
struct IdxFile {
    std::vector<std::uint32_t> dims;
    std::vector<std::uint8_t> bytes;

    std::size_t count() const { return dims.empty() ? 0 : dims.front(); }
    std::size_t itemSize() const;
};

// Reads a gzip-compressed (or plain) IDX file of unsigned bytes with
// `expectedRank` dimensions. Throws DataError naming the file and the problem:
// missing file, bad gzip stream, wrong magic number, wrong rank, or a payload
// shorter/longer than the header announces.
IdxFile readIdxFile(const std::string &path, int expectedRank);

} // namespace synaptic::data
