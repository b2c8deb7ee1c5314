#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace synaptic::session {

// The container of a session recording (DESIGN.md §5), independent of what
// the chunks hold. All integers little-endian.
//
//   header: "SYNREC\r\n" | u16 format version | u16 minimum readable version
//           | u32 metadata length | metadata (the writer's; e.g. config JSON)
//   chunk:  "CHNK" | u32 stored length | u32 raw length | u32 CRC-32 of the
//           stored bytes | f64 first time | f64 last time | stored bytes (zstd)
//
// Append-only: a chunk is written whole and flushed, so a killed writer loses
// at most the chunk it was writing.
inline constexpr std::uint16_t kFormatVersion = 1;
inline constexpr std::uint16_t kMinReadableVersion = 1;

class ChunkWriter {
public:
    // Throws std::runtime_error naming the path if it cannot be created.
    ChunkWriter(const std::string &path, const std::string &metadata);
    // Compresses and appends one chunk; throws naming the path on an I/O error.
    void write(const std::string &raw, double firstTime, double lastTime);
    std::uint64_t bytesWritten() const { return m_offset; }

private:
    std::string m_path;
    std::ofstream m_out;
    std::uint64_t m_offset = 0;
};

struct Chunk {
    std::uint64_t offset = 0; // of the chunk's first byte in the file
    double firstTime = 0;
    double lastTime = 0;
    std::string raw;          // decompressed
};

// What a reader found wrong without giving up: each names the byte offset.
struct ReadProblem {
    std::uint64_t offset = 0;
    std::string what;
};

struct ChunkFile {
    std::uint16_t formatVersion = 0;
    std::string metadata;
    std::vector<Chunk> chunks;           // every whole, intact chunk, in file order
    std::vector<ReadProblem> problems;   // corrupt chunks skipped, a truncated tail
};

// Reads a whole recording. Throws std::runtime_error naming the path for a
// file that is not a recording (bad magic, short header) or needs a newer
// reader (its minimum readable version); anything after a valid header is
// read as far as possible, with the problems listed.
ChunkFile readChunkFile(const std::string &path);

} // namespace synaptic::session
