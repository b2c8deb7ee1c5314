#include "state_codec.h"

#include <ATen/ATen.h>
#include <zlib.h>

#include <cstring>

namespace synaptic::engine {

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'S', 'T', 'A', 'T', 'E'};
constexpr std::uint64_t kStateFormatVersion = 2; // 2: owners keep the delta in flight, the center writes state

std::uint32_t crcOf(const char *data, std::size_t size) {
    uLong crc = crc32(0L, Z_NULL, 0);
    for (std::size_t off = 0; off < size; off += 1u << 30) {
        const auto n = std::min<std::size_t>(size - off, 1u << 30);
        crc = crc32(crc, reinterpret_cast<const Bytef *>(data + off), uInt(n));
    }
    return std::uint32_t(crc);
}

std::uint64_t readLE(const std::string &in, std::size_t at, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v |= std::uint64_t(std::uint8_t(in[at + std::size_t(i)])) << (8 * i);
    return v;
}

} // namespace

StateWriter::StateWriter() {
    m_bytes.assign(kMagic, sizeof kMagic);
    u64(kStateFormatVersion);
}

void StateWriter::u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        m_bytes.push_back(char((v >> (8 * i)) & 0xff));
}

void StateWriter::f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
}

void StateWriter::tensor(const at::Tensor &t) {
    if (!t.defined()) {
        u64(~std::uint64_t(0));
        return;
    }
    const at::Tensor flat = t.detach().to(at::kCPU, at::kFloat).contiguous().reshape({-1});
    u64(std::uint64_t(flat.numel()));
    m_bytes.append(reinterpret_cast<const char *>(flat.data_ptr<float>()), std::size_t(flat.numel()) * sizeof(float));
}

void StateWriter::ids(const std::vector<std::uint64_t> &v) {
    u64(v.size());
    for (auto id : v)
        u64(id);
}

std::string StateWriter::finish() {
    const std::uint32_t crc = crcOf(m_bytes.data(), m_bytes.size());
    for (int i = 0; i < 4; ++i)
        m_bytes.push_back(char((crc >> (8 * i)) & 0xff));
    return std::move(m_bytes);
}

StateReader::StateReader(std::string bytes, std::string source) : m_bytes(std::move(bytes)), m_source(std::move(source)) {
    if (m_bytes.size() < sizeof kMagic || m_bytes.compare(0, sizeof kMagic, kMagic, sizeof kMagic) != 0)
        fail("not a Synaptic node state file (no SYNSTATE magic)");
    if (m_bytes.size() < sizeof kMagic + 8 + 4)
        fail("truncated: " + std::to_string(m_bytes.size()) + " bytes, shorter than the header");
    m_end = m_bytes.size() - 4;
    const auto stored = std::uint32_t(readLE(m_bytes, m_end, 4));
    if (stored != crcOf(m_bytes.data(), m_end)) {
        m_at = m_end; // where the checksum is
        fail("checksum mismatch over bytes 0-" + std::to_string(m_end) + ": the file is torn or corrupted");
    }
    m_at = sizeof kMagic;
    const auto version = u64();
    if (version != kStateFormatVersion)
        fail("format version " + std::to_string(version) + ", this build reads " + std::to_string(kStateFormatVersion));
}

void StateReader::fail(const std::string &what) const {
    throw StateFileError(m_source + ": at byte " + std::to_string(m_at) + ": " + what);
}

void StateReader::need(std::size_t n) const {
    if (m_at + n > m_end || m_at + n < m_at)
        fail("truncated field (" + std::to_string(n) + " bytes needed, " + std::to_string(m_end - m_at) + " left)");
}

std::uint64_t StateReader::u64() {
    need(8);
    const auto v = readLE(m_bytes, m_at, 8);
    m_at += 8;
    return v;
}

double StateReader::f64() {
    const std::uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

at::Tensor StateReader::tensor(const std::string &device) {
    const auto n = u64();
    if (n == ~std::uint64_t(0))
        return {};
    if (n > (m_end - m_at) / sizeof(float))
        fail("tensor of " + std::to_string(n) + " values overruns the file");
    at::Tensor t = at::empty({std::int64_t(n)}, at::kFloat);
    std::memcpy(t.data_ptr<float>(), m_bytes.data() + m_at, std::size_t(n) * sizeof(float));
    m_at += std::size_t(n) * sizeof(float);
    return device == "cpu" ? t : t.to(at::Device(device));
}

std::vector<std::uint64_t> StateReader::ids() {
    const auto n = u64();
    if (n > (m_end - m_at) / 8)
        fail("id list of " + std::to_string(n) + " entries overruns the file");
    std::vector<std::uint64_t> out(n);
    for (auto &id : out)
        id = u64();
    return out;
}

void StateReader::expectEnd() const {
    if (m_at != m_end)
        fail(std::to_string(m_end - m_at) + " bytes left over: written by another layout");
}

} // namespace synaptic::engine
