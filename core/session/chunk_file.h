#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
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
//   trailer (only once the writer finished): u64 offset of the index chunk |
//           "SYNIDX\r\n". The index chunk is an ordinary chunk; what it
//           holds is the session layer's business.
//
// Append-only: a chunk is written whole and flushed, so a killed writer loses
// at most the chunk it was writing (and the trailer: readers then scan).
inline constexpr std::uint16_t kFormatVersion = 1;
inline constexpr std::uint16_t kMinReadableVersion = 1;

class ChunkWriter {
public:
    // Throws std::runtime_error naming the path if it cannot be created.
    ChunkWriter(const std::string &path, const std::string &metadata);
    // Compresses and appends one chunk; throws naming the path on an I/O error.
    // Returns the chunk's offset.
    std::uint64_t write(const std::string &raw, double firstTime, double lastTime);
    // Appends the index chunk and the trailer that points at it. Nothing may
    // be written after it.
    void finish(const std::string &indexRaw, double firstTime, double lastTime);
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
    std::uint64_t size = 0;   // bytes in the file, header included (ChunkReader::read)
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
    std::vector<Chunk> chunks;           // every whole, intact chunk, in file order (the index chunk too)
    std::optional<std::uint64_t> indexOffset; // from the trailer, when the writer finished
    std::vector<ReadProblem> problems;   // corrupt chunks skipped, a truncated tail
};

// A chunk that cannot be read where it was expected; names the offset.
class ChunkError : public std::runtime_error {
public:
    ChunkError(std::uint64_t offset, const std::string &what)
        : std::runtime_error("byte " + std::to_string(offset) + ": " + what), m_offset(offset), m_problem(what) {}
    std::uint64_t offset() const { return m_offset; }
    const std::string &problem() const { return m_problem; } // what() without the offset

private:
    std::uint64_t m_offset;
    std::string m_problem;
};

// Random access for seeking: the header on open, then any chunk by offset.
class ChunkReader {
public:
    // Throws std::runtime_error naming the path like readChunkFile().
    explicit ChunkReader(const std::string &path);
    std::uint16_t formatVersion() const { return m_version; }
    const std::string &metadata() const { return m_metadata; }
    std::uint64_t fileSize() const { return m_size; }
    std::uint64_t firstChunkOffset() const { return m_firstChunk; }
    // The index chunk's offset from the trailer; std::nullopt when the file
    // has none (the writer did not finish) or it points nowhere sensible.
    std::optional<std::uint64_t> indexOffset() const { return m_index; }
    // The chunk at `offset`, checked and decompressed; ChunkError if it is not
    // a whole, intact chunk.
    Chunk read(std::uint64_t offset);

private:
    std::string m_path;
    std::ifstream m_in;
    std::uint16_t m_version = 0;
    std::string m_metadata;
    std::uint64_t m_size = 0;
    std::uint64_t m_firstChunk = 0;
    std::optional<std::uint64_t> m_index;
};

// Reads a whole recording. Throws std::runtime_error naming the path for a
// file that is not a recording (bad magic, short header) or needs a newer
// reader (its minimum readable version); anything after a valid header is
// read as far as possible, with the problems listed.
ChunkFile readChunkFile(const std::string &path);

} // namespace synaptic::session
