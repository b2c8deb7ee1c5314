#include "chunk_file.h"

#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <stdexcept>

namespace synaptic::session {

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'R', 'E', 'C', '\r', '\n'};
constexpr char kChunkMagic[4] = {'C', 'H', 'N', 'K'};
constexpr char kTrailerMagic[8] = {'S', 'Y', 'N', 'I', 'D', 'X', '\r', '\n'};
constexpr std::size_t kHeader = sizeof kMagic + 2 + 2 + 4;
constexpr std::size_t kChunkHeader = 4 + 4 + 4 + 4 + 8 + 8;
constexpr std::size_t kTrailer = 8 + sizeof kTrailerMagic;
// A length beyond this is corruption, not data: the writer closes a chunk at
// 1 MiB of records, so only one enormous record could come near it.
constexpr std::uint32_t kMaxChunk = 64u << 20;
constexpr int kZstdLevel = 3;

template <typename T>
void put(std::string &out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T)); // the project targets little-endian hosts (x86-64, aarch64)
    out.append(bytes, sizeof(T));
}

template <typename T>
T get(const char *p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

std::uint32_t crcOf(const char *bytes, std::size_t n) {
    return std::uint32_t(crc32(0L, reinterpret_cast<const Bytef *>(bytes), uInt(n)));
}

struct Header {
    std::uint16_t version = 0;
    std::string metadata;
    std::size_t length = 0;
};

// `bytes` holds at least the file's first kHeader bytes (more if available).
Header parseHeader(const std::string &path, const std::string &bytes, std::uint64_t fileSize) {
    if (bytes.size() < kHeader || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        throw std::runtime_error(path + ": not a Synaptic recording (no SYNREC header)");
    Header h;
    h.version = get<std::uint16_t>(bytes.data() + 8);
    const auto minReadable = get<std::uint16_t>(bytes.data() + 10);
    if (minReadable > kFormatVersion)
        throw std::runtime_error(path + ": written in format " + std::to_string(h.version) +
                                 ", which needs a reader of format " + std::to_string(minReadable) +
                                 " or newer; this build reads format " + std::to_string(kFormatVersion));
    const auto metaLength = get<std::uint32_t>(bytes.data() + 12);
    if (metaLength > fileSize - kHeader)
        throw std::runtime_error(path + ": header says " + std::to_string(metaLength) +
                                 " bytes of metadata but the file is shorter");
    h.length = kHeader + metaLength;
    return h;
}

// What decoding one chunk found. `size` is the whole chunk's length when the
// framing was intact (so a reader can go on after a bad checksum).
struct Decoded {
    bool ok = false;
    bool framing = true;  // false: the header itself is broken or cut
    std::size_t size = 0;
    std::string problem;
    Chunk chunk;
};

// `p` points at a chunk header with `available` bytes from there on.
Decoded decode(const char *p, std::size_t available, std::uint64_t offset) {
    Decoded d;
    d.chunk.offset = offset;
    if (available < kChunkHeader) {
        d.framing = false;
        d.problem = "truncated chunk header (a writer stopped mid-chunk); read up to here";
        return d;
    }
    const auto storedLength = get<std::uint32_t>(p + 4);
    if (std::memcmp(p, kChunkMagic, 4) != 0 || storedLength > kMaxChunk) {
        d.framing = false;
        d.problem = "corrupt chunk header";
        return d;
    }
    if (available - kChunkHeader < storedLength) {
        d.framing = false;
        d.problem = "truncated chunk (a writer stopped mid-chunk); read up to here";
        return d;
    }
    d.size = kChunkHeader + storedLength;
    const char *stored = p + kChunkHeader;
    const auto rawLength = get<std::uint32_t>(p + 8);
    d.chunk.firstTime = get<double>(p + 16);
    d.chunk.lastTime = get<double>(p + 24);
    if (crcOf(stored, storedLength) != get<std::uint32_t>(p + 12)) {
        d.problem = "chunk checksum mismatch; chunk skipped";
        return d;
    }
    if (rawLength > kMaxChunk) {
        d.problem = "chunk claims an impossible size; chunk skipped";
        return d;
    }
    // The zstd frame must say the same size as the header before anything is
    // allocated: a small chunk must not make the reader inflate a bomb.
    if (ZSTD_getFrameContentSize(stored, storedLength) != rawLength) {
        d.problem = "chunk's compressed frame does not match its stated size; chunk skipped";
        return d;
    }
    d.chunk.raw.resize(rawLength);
    const std::size_t n = ZSTD_decompress(d.chunk.raw.data(), d.chunk.raw.size(), stored, storedLength);
    if (ZSTD_isError(n) || n != rawLength) {
        d.problem = "chunk does not decompress; chunk skipped";
        d.chunk.raw.clear();
        return d;
    }
    d.ok = true;
    return d;
}

// The trailer's index offset when the last bytes are a trailer pointing
// inside the chunk area.
std::optional<std::uint64_t> trailerOffset(const char *last16, std::uint64_t fileSize, std::uint64_t firstChunk) {
    if (std::memcmp(last16 + 8, kTrailerMagic, sizeof kTrailerMagic) != 0)
        return std::nullopt;
    const auto offset = get<std::uint64_t>(last16);
    if (offset < firstChunk || offset > fileSize || fileSize - offset < kChunkHeader + kTrailer)
        return std::nullopt;
    return offset;
}

} // namespace

ChunkWriter::ChunkWriter(const std::string &path, const std::string &metadata)
    : m_path(path), m_out(path, std::ios::binary | std::ios::trunc) {
    if (!m_out)
        throw std::runtime_error(path + ": cannot create the recording");
    std::string header(kMagic, sizeof kMagic);
    put<std::uint16_t>(header, kFormatVersion);
    put<std::uint16_t>(header, kMinReadableVersion);
    put<std::uint32_t>(header, std::uint32_t(metadata.size()));
    header += metadata;
    m_out.write(header.data(), std::streamsize(header.size()));
    m_out.flush();
    if (!m_out)
        throw std::runtime_error(path + ": cannot write the recording's header");
    m_offset = header.size();
}

std::uint64_t ChunkWriter::write(const std::string &raw, double firstTime, double lastTime) {
    if (raw.size() > kMaxChunk)
        throw std::runtime_error(m_path + ": chunk of " + std::to_string(raw.size()) + " bytes is over the limit");
    std::string stored(ZSTD_compressBound(raw.size()), '\0');
    const std::size_t n = ZSTD_compress(stored.data(), stored.size(), raw.data(), raw.size(), kZstdLevel);
    if (ZSTD_isError(n))
        throw std::runtime_error(m_path + ": zstd: " + ZSTD_getErrorName(n));
    stored.resize(n);
    std::string chunk(kChunkMagic, sizeof kChunkMagic);
    put<std::uint32_t>(chunk, std::uint32_t(stored.size()));
    put<std::uint32_t>(chunk, std::uint32_t(raw.size()));
    put<std::uint32_t>(chunk, crcOf(stored.data(), stored.size()));
    put<double>(chunk, firstTime);
    put<double>(chunk, lastTime);
    chunk += stored;
    m_out.write(chunk.data(), std::streamsize(chunk.size()));
    m_out.flush(); // whole chunks only reach the file: a crash loses at most this one
    if (!m_out)
        throw std::runtime_error(m_path + ": cannot append to the recording at byte " + std::to_string(m_offset));
    const std::uint64_t at = m_offset;
    m_offset += chunk.size();
    return at;
}

void ChunkWriter::finish(const std::string &indexRaw, double firstTime, double lastTime) {
    const std::uint64_t at = write(indexRaw, firstTime, lastTime);
    std::string trailer;
    put<std::uint64_t>(trailer, at);
    trailer.append(kTrailerMagic, sizeof kTrailerMagic);
    m_out.write(trailer.data(), std::streamsize(trailer.size()));
    m_out.flush();
    if (!m_out)
        throw std::runtime_error(m_path + ": cannot write the recording's trailer");
    m_offset += trailer.size();
}

ChunkReader::ChunkReader(const std::string &path) : m_path(path), m_in(path, std::ios::binary) {
    if (!m_in)
        throw std::runtime_error(path + ": cannot open the recording");
    m_in.seekg(0, std::ios::end);
    m_size = std::uint64_t(m_in.tellg());
    m_in.seekg(0);
    std::string head(std::min<std::uint64_t>(m_size, kHeader), '\0');
    m_in.read(head.data(), std::streamsize(head.size()));
    const Header h = parseHeader(path, head, m_size);
    m_version = h.version;
    m_metadata.resize(h.length - kHeader);
    m_in.read(m_metadata.data(), std::streamsize(m_metadata.size()));
    m_firstChunk = h.length;
    if (m_size >= m_firstChunk + kTrailer) {
        char last[kTrailer];
        m_in.seekg(std::streamoff(m_size - kTrailer));
        m_in.read(last, kTrailer);
        if (m_in)
            m_index = trailerOffset(last, m_size, m_firstChunk);
    }
    m_in.clear();
}

Chunk ChunkReader::read(std::uint64_t offset) {
    if (offset < m_firstChunk || offset >= m_size)
        throw ChunkError(offset, "no chunk here (outside the file's chunk area)");
    char head[kChunkHeader];
    const std::size_t headBytes = std::size_t(std::min<std::uint64_t>(kChunkHeader, m_size - offset));
    m_in.clear();
    m_in.seekg(std::streamoff(offset));
    m_in.read(head, std::streamsize(headBytes));
    std::string bytes(head, headBytes);
    if (headBytes == kChunkHeader) {
        const auto storedLength = get<std::uint32_t>(head + 4);
        if (std::memcmp(head, kChunkMagic, 4) == 0 && storedLength <= kMaxChunk) {
            const std::size_t body = std::size_t(std::min<std::uint64_t>(storedLength, m_size - offset - kChunkHeader));
            bytes.resize(kChunkHeader + body);
            m_in.read(bytes.data() + kChunkHeader, std::streamsize(body));
        }
    }
    if (!m_in)
        throw ChunkError(offset, "cannot read the chunk from " + m_path);
    Decoded d = decode(bytes.data(), bytes.size(), offset);
    if (!d.ok)
        throw ChunkError(offset, d.problem);
    d.chunk.size = d.size;
    return std::move(d.chunk);
}

ChunkFile readChunkFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open the recording");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Header h = parseHeader(path, bytes, bytes.size());
    ChunkFile file;
    file.formatVersion = h.version;
    file.metadata = bytes.substr(kHeader, h.length - kHeader);
    std::size_t end = bytes.size();
    if (end >= h.length + kTrailer)
        file.indexOffset = trailerOffset(bytes.data() + end - kTrailer, end, h.length);
    if (file.indexOffset)
        end -= kTrailer;

    std::size_t at = h.length;
    while (at < end) {
        Decoded d = decode(bytes.data() + at, end - at, at);
        if (d.ok) {
            file.chunks.push_back(std::move(d.chunk));
        } else if (d.framing) {
            file.problems.push_back({at, d.problem});
        } else if (d.problem.rfind("truncated", 0) == 0) {
            file.problems.push_back({at, d.problem});
            break;
        } else {
            // Lost framing: look for the next chunk marker and go on from there.
            const std::size_t next = bytes.find(std::string(kChunkMagic, 4), at + 1);
            file.problems.push_back({at, d.problem + "; skipped to " +
                                             (next == std::string::npos || next >= end
                                                  ? std::string("the end")
                                                  : "byte " + std::to_string(next))});
            if (next == std::string::npos || next >= end)
                break;
            at = next;
            continue;
        }
        at += d.size;
    }
    return file;
}

} // namespace synaptic::session
