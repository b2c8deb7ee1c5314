#include "state_store.h"

#include "state_codec.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

namespace synaptic::engine {

namespace fs = std::filesystem;

void MemoryStateStore::write(int node, const std::string &bytes, StatePart part) {
    auto &[newest, previous] = m_state[{node, part}];
    previous = std::move(newest);
    newest = bytes;
    ++m_writes;
}

std::optional<std::string> MemoryStateStore::read(int node, StatePart part) const {
    const auto it = m_state.find({node, part});
    if (it == m_state.end())
        return std::nullopt;
    return it->second.first;
}

std::optional<std::string> MemoryStateStore::readPrevious(int node, StatePart part) const {
    const auto it = m_state.find({node, part});
    if (it == m_state.end() || it->second.second.empty())
        return std::nullopt;
    return it->second.second;
}

std::string MemoryStateStore::describe(int node, StatePart part) const {
    return "node " + std::to_string(node) + (part == StatePart::Hub ? " hub" : "") + " (in-memory store)";
}

namespace {

[[noreturn]] void ioFail(const std::string &path, const char *what, int err = errno) {
    throw StateFileError(path + ": cannot " + what + ": " + std::strerror(err));
}

void fsyncPath(const std::string &path, int flags) {
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0)
        ioFail(path, "open for fsync");
    const bool ok = ::fsync(fd) == 0;
    const int err = errno;
    ::close(fd);
    if (!ok)
        ioFail(path, "fsync", err);
}

// Only a file that does not exist is absent: any other failure to read it
// is an error naming it (never a silent fall back to an older generation).
std::optional<std::string> slurp(const std::string &path) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) {
        if (errno == ENOENT)
            return std::nullopt;
        ioFail(path, "open");
    }
    std::string bytes;
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        bytes.append(buf, n);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    std::fclose(f);
    if (failed)
        ioFail(path, "read", err);
    return bytes;
}

} // namespace

FileStateStore::FileStateStore(std::string dir) : m_dir(std::move(dir)) {}

std::string FileStateStore::pathOf(int node, StatePart part) const {
    return (fs::path(m_dir) / ("node-" + std::to_string(node)) / (part == StatePart::Hub ? "hub-state.bin" : "state.bin"))
        .string();
}

std::string FileStateStore::describe(int node, StatePart part) const { return pathOf(node, part); }

void FileStateStore::write(int node, const std::string &bytes, StatePart part) {
    const std::string path = pathOf(node, part);
    const std::string dir = fs::path(path).parent_path().string();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw StateFileError(dir + ": cannot create the state directory: " + ec.message());
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        ioFail(tmp, "create");
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = n == 0 ? EIO : errno;
            ::close(fd);
            ioFail(tmp, "write", err);
        }
        done += std::size_t(n);
    }
    if (::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        ioFail(tmp, "fsync", err);
    }
    ::close(fd);
    // The newest becomes the previous generation by a hard link, so
    // state.bin exists at every instant; the rename then replaces it.
    const std::string prev = path + ".prev";
    if (::unlink(prev.c_str()) != 0 && errno != ENOENT)
        ioFail(prev, "remove the generation before the previous");
    if (::link(path.c_str(), prev.c_str()) != 0 && errno != ENOENT)
        ioFail(path, "keep the previous generation");
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        ioFail(path, "rename the new state into place");
    fsyncPath(dir, O_RDONLY | O_DIRECTORY); // the renames themselves survive a power cut
    ++m_writes;
}

std::optional<std::string> FileStateStore::read(int node, StatePart part) const { return slurp(pathOf(node, part)); }

std::optional<std::string> FileStateStore::readPrevious(int node, StatePart part) const {
    return slurp(pathOf(node, part) + ".prev");
}

} // namespace synaptic::engine
