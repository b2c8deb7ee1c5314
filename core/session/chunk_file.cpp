#include "chunk_file.h"

#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <stdexcept>

namespace synaptic::session {

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'R', 'E', 'C', '\r', '\n'};
constexpr char kChunkMagic[4] = {'C', 'H', 'N', 'K'};
constexpr std::size_t kChunkHeader = 4 + 4 + 4 + 4 + 8 + 8;
constexpr std::uint32_t kMaxChunk = 256u << 20; // a length beyond this is corruption, not data
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

std::uint32_t crcOf(const std::string &bytes) {
    return std::uint32_t(crc32(0L, reinterpret_cast<const Bytef *>(bytes.data()), uInt(bytes.size())));
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

void ChunkWriter::write(const std::string &raw, double firstTime, double lastTime) {
    std::string stored(ZSTD_compressBound(raw.size()), '\0');
    const std::size_t n = ZSTD_compress(stored.data(), stored.size(), raw.data(), raw.size(), kZstdLevel);
    if (ZSTD_isError(n))
        throw std::runtime_error(m_path + ": zstd: " + ZSTD_getErrorName(n));
    stored.resize(n);
    std::string chunk(kChunkMagic, sizeof kChunkMagic);
    put<std::uint32_t>(chunk, std::uint32_t(stored.size()));
    put<std::uint32_t>(chunk, std::uint32_t(raw.size()));
    put<std::uint32_t>(chunk, crcOf(stored));
    put<double>(chunk, firstTime);
    put<double>(chunk, lastTime);
    chunk += stored;
    m_out.write(chunk.data(), std::streamsize(chunk.size()));
    m_out.flush(); // whole chunks only reach the file: a crash loses at most this one
    if (!m_out)
        throw std::runtime_error(m_path + ": cannot append to the recording at byte " + std::to_string(m_offset));
    m_offset += chunk.size();
}

ChunkFile readChunkFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open the recording");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    constexpr std::size_t kHeader = sizeof kMagic + 2 + 2 + 4;
    if (bytes.size() < kHeader || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        throw std::runtime_error(path + ": not a Synaptic recording (no SYNREC header)");
    ChunkFile file;
    file.formatVersion = get<std::uint16_t>(bytes.data() + 8);
    const auto minReadable = get<std::uint16_t>(bytes.data() + 10);
    if (minReadable > kFormatVersion)
        throw std::runtime_error(path + ": written in format " + std::to_string(file.formatVersion) +
                                 ", which needs a reader of format " + std::to_string(minReadable) +
                                 " or newer; this build reads format " + std::to_string(kFormatVersion));
    const auto metaLength = get<std::uint32_t>(bytes.data() + 12);
    if (metaLength > bytes.size() - kHeader)
        throw std::runtime_error(path + ": header says " + std::to_string(metaLength) +
                                 " bytes of metadata but the file is shorter");
    file.metadata = bytes.substr(kHeader, metaLength);

    std::size_t at = kHeader + metaLength;
    while (at < bytes.size()) {
        if (bytes.size() - at < kChunkHeader) {
            file.problems.push_back({at, "truncated chunk header (a writer stopped mid-chunk); read up to here"});
            break;
        }
        const char *p = bytes.data() + at;
        const auto storedLength = get<std::uint32_t>(p + 4);
        if (std::memcmp(p, kChunkMagic, 4) != 0 || storedLength > kMaxChunk) {
            // Lost framing: look for the next chunk marker and go on from there.
            const std::size_t next = bytes.find(std::string(kChunkMagic, 4), at + 1);
            file.problems.push_back({at, "corrupt chunk header; skipped to " +
                                             (next == std::string::npos ? std::string("the end")
                                                                        : "byte " + std::to_string(next))});
            if (next == std::string::npos)
                break;
            at = next;
            continue;
        }
        if (bytes.size() - at - kChunkHeader < storedLength) {
            file.problems.push_back({at, "truncated chunk (a writer stopped mid-chunk); read up to here"});
            break;
        }
        const std::string stored = bytes.substr(at + kChunkHeader, storedLength);
        const auto rawLength = get<std::uint32_t>(p + 8);
        Chunk c;
        c.offset = at;
        c.firstTime = get<double>(p + 16);
        c.lastTime = get<double>(p + 24);
        if (crcOf(stored) != get<std::uint32_t>(p + 12)) {
            file.problems.push_back({at, "chunk checksum mismatch; chunk skipped"});
        } else if (rawLength > kMaxChunk) {
            file.problems.push_back({at, "chunk claims an impossible size; chunk skipped"});
        } else {
            c.raw.resize(rawLength);
            const std::size_t n = ZSTD_decompress(c.raw.data(), c.raw.size(), stored.data(), stored.size());
            if (ZSTD_isError(n) || n != rawLength)
                file.problems.push_back({at, "chunk does not decompress; chunk skipped"});
            else
                file.chunks.push_back(std::move(c));
        }
        at += kChunkHeader + storedLength;
    }
    return file;
}

} // namespace synaptic::session
