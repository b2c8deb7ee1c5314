#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace synaptic::engine {

// A node's durable state file is unreadable: names the file (or node) and
// the byte offset where reading failed.
class StateFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The bytes of a node's durable state (issue 15 §1): little-endian integer
// fields after an 8-byte magic and a format version, closed by a CRC-32 of
// all that precedes it, so a torn or corrupted file is refused whole, never
// half-read. Tensors are stored as float32 in host byte order (little-endian
// on every target Synaptic builds for), copied to the CPU first.
class StateWriter {
public:
    StateWriter();
    void u64(std::uint64_t v);
    void i64(std::int64_t v) { u64(std::uint64_t(v)); }
    void f64(double v);
    void flag(bool v) { u64(v ? 1 : 0); }
    void tensor(const at::Tensor &t); // undefined tensors round-trip as undefined
    void ids(const std::vector<std::uint64_t> &v);
    // The finished bytes, checksum appended.
    std::string finish();

private:
    std::string m_bytes;
};

class StateReader {
public:
    // Checks magic, version and checksum; throws StateFileError naming `source`.
    StateReader(std::string bytes, std::string source);
    std::uint64_t u64();
    std::int64_t i64() { return std::int64_t(u64()); }
    double f64();
    bool flag() { return u64() != 0; }
    at::Tensor tensor(const std::string &device);
    std::vector<std::uint64_t> ids();
    // Throws unless every byte was read (a writer of another layout).
    void expectEnd() const;

private:
    [[noreturn]] void fail(const std::string &what) const;
    void need(std::size_t n) const;
    std::string m_bytes;
    std::string m_source;
    std::size_t m_at = 0;
    std::size_t m_end = 0; // before the checksum
};

} // namespace synaptic::engine
