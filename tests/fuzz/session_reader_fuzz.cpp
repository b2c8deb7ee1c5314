// libFuzzer target for the session-recording reader (issue 5, DESIGN.md §5).
//
// Whatever the bytes, reading a recording must end in a result or a
// std::exception, never a crash, a sanitizer report or a hang. Each input
// goes through every layer a reader uses:
//
//   1. parseRecords() on the bytes themselves (a chunk's raw records);
//   2. the bytes as a whole file: readChunkFile(), then SessionFile (open,
//      verify(), readRun() and stateAt() of every run, the events described
//      and hashed the way rerun does, routing snapshots walked the way the
//      views do, each run's config JSON parsed the way export/rerun do);
//   3. if the bytes are a recording, the same file again with every chunk's
//      CRC-32 recomputed, so mutations get past the checksum and reach zstd,
//      the records and the index;
//   4. "RECS" inputs (structure-aware): the rest, split at "|CHUNK|", is
//      written as well-formed zstd chunks by the real ChunkWriter (the last
//      piece as the footer index when flag bit 0 is set, its chunk offsets
//      made to match with bit 1), so mutations land
//      directly in the protobuf records a SessionFile interprets.
//
// The file lives in a memfd (no disk, nothing left behind, unique per
// process), opened by path through /proc/self/fd; /dev/shm or $TMPDIR is the
// fallback. See tests/fuzz/README.md.
#include "core/session/chunk_file.h"
#include "core/session/record_codec.h"
#include "core/session/record_stream.h"
#include "core/session/session_file.h"
#include "core/session/session_state.h"

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_events.h"

#include <google/protobuf/stubs/logging.h>
#include <zlib.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

using namespace synaptic;
using namespace synaptic::session;

namespace {

// A real (not sanitizer) finding that is not a crash: stop with a message.
[[noreturn]] void fail(const char *what) {
    std::fprintf(stderr, "session_reader_fuzz: invariant broken: %s\n", what);
    std::abort();
}

class ScratchFile {
public:
    ScratchFile() {
#ifdef MFD_CLOEXEC
        m_fd = memfd_create("synaptic-fuzz", MFD_CLOEXEC);
#endif
        if (m_fd >= 0) {
            m_path = "/proc/self/fd/" + std::to_string(m_fd);
        } else {
            const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
            m_path = std::string(dir) + "/synaptic-fuzz-" + std::to_string(getpid()) + ".rec";
            m_unlink = true;
        }
    }
    ~ScratchFile() {
        if (m_fd >= 0)
            close(m_fd);
        if (m_unlink)
            unlink(m_path.c_str());
    }
    const std::string &path() const { return m_path; }

    void write(const char *data, std::size_t size) {
        if (m_fd >= 0) {
            if (ftruncate(m_fd, 0) != 0)
                fail("ftruncate on the memfd");
            std::size_t done = 0;
            while (done < size) {
                const ssize_t n = pwrite(m_fd, data + done, size - done, off_t(done));
                if (n <= 0)
                    fail("pwrite on the memfd");
                done += std::size_t(n);
            }
            return;
        }
        std::FILE *f = std::fopen(m_path.c_str(), "wb");
        if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
            fail("cannot write the scratch file");
    }

private:
    int m_fd = -1;
    std::string m_path;
    bool m_unlink = false;
};

ScratchFile &scratch() {
    static ScratchFile file; // one per process (each libFuzzer worker has its own)
    return file;
}

bool sane(double fraction) { return fraction >= 0 && fraction <= 1; }

// What consumers do with a routing snapshot that fromProto() let through:
// every per-region / per-edge index must be in range.
void walkRouting(const engine::RoutingSnapshot &s) {
    const auto edges = s.regionOfEdge.size();
    for (const auto &row : s.rows) {
        if (!row)
            fail("null routing row");
        if (row->cachedVersion.size() != edges)
            fail("routing row: cached versions do not match the edges");
        for (int owner : row->owner)
            if (owner < 0 || std::size_t(owner) >= edges)
                fail("routing row: owner out of range");
        (void)row->versionLag(s.regionOfEdge); // indexes ownerVersion by region of each edge
        (void)row->minCachedVersion();
    }
}

void readSession(const std::string &path) {
    std::unique_ptr<SessionFile> file;
    try {
        file = std::make_unique<SessionFile>(path, [](double f) {
            if (!sane(f))
                fail("open: progress fraction outside [0, 1]");
            return true;
        });
    } catch (const std::exception &) {
        return; // not a recording, or a newer one: a clear error is the right answer
    }
    try {
        for (const auto &p : file->verify([](double f) {
                 if (!sane(f))
                     fail("verify: progress fraction outside [0, 1]");
                 return true;
             }))
            (void)p.what.size();
    } catch (const std::exception &) {
    }
    const int runs = int(file->runs().size());
    for (int run = 0; run < runs && run < 16; ++run) {
        const RunInfo info = file->runs()[std::size_t(run)];
        try {
            const RunData data = file->readRun(run, [](double f) {
                if (!sane(f))
                    fail("readRun: progress fraction outside [0, 1]");
                return true;
            });
            engine::EventHash hash; // what rerun compares
            for (const auto &e : data.events) {
                hash.add(e);
                (void)eventTime(e);
                if (const auto *c = std::get_if<engine::CommandEvent>(&e))
                    (void)c->issued.describe(); // an unknown kind stays unknown
            }
            for (const auto &r : data.routing) {
                if (!r.snapshot)
                    fail("readRun: routing sample without a snapshot");
                walkRouting(*r.snapshot);
            }
        } catch (const std::exception &) {
        }
        try {
            (void)engine::parseClusterConfig(info.start.config_json(), "recording"); // export and rerun do
        } catch (const std::exception &) {
        }
        const double mid = info.firstTime + (info.lastTime - info.firstTime) / 2;
        // Before the run, inside it (a keyframe lands), after it, and NaN.
        for (const double t : {-1e300, mid, std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::quiet_NaN()}) {
            try {
                const SessionState s = file->stateAt(run, t);
                if (s.routing)
                    walkRouting(*s.routing);
                (void)s.toKeyframe(); // what a writer makes of the same state
            } catch (const std::exception &) {
            }
        }
    }
    try {
        (void)file->readRun(runs); // one past the end: std::out_of_range, never UB
        fail("readRun accepted a run that is not there");
    } catch (const std::out_of_range &) {
    }
}

void readChunks(const std::string &path) {
    try {
        const ChunkFile f = readChunkFile(path);
        std::uint64_t last = 0;
        bool first = true;
        for (const auto &c : f.chunks) {
            if (!first && c.offset <= last)
                fail("readChunkFile: chunks out of file order");
            first = false;
            last = c.offset;
            try {
                (void)parseRecords(c.raw);
            } catch (const std::exception &) {
            }
        }
    } catch (const std::exception &) {
    }
}

void readFile(const char *data, std::size_t size) {
    scratch().write(data, size);
    readChunks(scratch().path());
    readSession(scratch().path());
}

template <typename T>
T get(const char *p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The same bytes with every chunk's CRC-32 recomputed (the container's layout
// is documented in chunk_file.h). Empty if the bytes are not a recording or
// nothing changed.
std::string withFixedChecksums(const char *data, std::size_t size) {
    constexpr std::size_t kHeader = 16, kChunkHeader = 32;
    if (size < kHeader || std::memcmp(data, "SYNREC\r\n", 8) != 0)
        return {};
    const std::uint64_t meta = get<std::uint32_t>(data + 12);
    if (meta > size - kHeader)
        return {};
    std::string out(data, size);
    bool changed = false;
    std::size_t at = std::size_t(kHeader + meta);
    while (at + kChunkHeader <= size) {
        if (std::memcmp(data + at, "CHNK", 4) != 0) {
            const auto next = std::string_view(data, size).find("CHNK", at + 1);
            if (next == std::string_view::npos)
                break;
            at = next;
            continue;
        }
        const std::uint32_t stored = get<std::uint32_t>(data + at + 4);
        if (stored > size - at - kChunkHeader)
            break;
        const auto crc = std::uint32_t(
            crc32(0L, reinterpret_cast<const Bytef *>(data + at + kChunkHeader), uInt(stored)));
        if (crc != get<std::uint32_t>(data + at + 12)) {
            std::memcpy(out.data() + at + 12, &crc, 4);
            changed = true;
        }
        at += kChunkHeader + stored;
    }
    return changed ? out : std::string();
}

// "RECS" <flags> then pieces separated by "|CHUNK|": each piece becomes one
// well-formed chunk; with flags bit 0 the last piece is written as the index
// chunk with the trailer that points at it (a finished writer), and with bit 1
// as well the index's chunk offsets are first set to where the chunks landed.
void readStructured(const char *data, std::size_t size) {
    const std::string_view body(data + 5, size - 5);
    const bool finish = (data[4] & 1) != 0;
    const bool fixIndex = (data[4] & 2) != 0;
    std::vector<std::string> pieces;
    std::size_t from = 0;
    for (;;) {
        const auto sep = body.find("|CHUNK|", from);
        pieces.emplace_back(body.substr(from, sep == std::string_view::npos ? std::string_view::npos : sep - from));
        if (sep == std::string_view::npos || pieces.size() >= 64)
            break;
        from = sep + 7;
    }
    try {
        ChunkWriter w(scratch().path(), R"({"tool":"session_reader_fuzz"})");
        std::vector<std::uint64_t> offsets;
        double t = 0;
        for (std::size_t i = 0; i + (finish ? 1 : 0) < pieces.size(); ++i, t += 1)
            offsets.push_back(w.write(pieces[i], t, t + 0.5));
        if (finish) {
            std::string index = pieces.back();
            if (fixIndex) // point the index's entries at the chunks as written
                try {
                    auto recs = parseRecords(index);
                    if (recs.size() == 1 && recs[0].has_index()) {
                        auto *entries = recs[0].mutable_index()->mutable_chunks();
                        for (int i = 0; i < entries->size() && std::size_t(i) < offsets.size(); ++i)
                            entries->Mutable(i)->set_offset(offsets[std::size_t(i)]);
                        index.clear();
                        appendRecord(index, recs[0]);
                    }
                } catch (const std::exception &) {
                }
            w.finish(index, 0, t);
        }
    } catch (const std::exception &) {
        fail("ChunkWriter failed on the scratch file");
    }
    readChunks(scratch().path());
    readSession(scratch().path());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    // protobuf logs every string field with invalid UTF-8 it refuses; the
    // refusal is what matters (an exception here), the log is noise.
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *bytes, std::size_t size) {
    const auto *data = reinterpret_cast<const char *>(bytes);
    try {
        (void)parseRecords(std::string(data, size));
    } catch (const std::exception &) {
    }
    if (size >= 5 && std::memcmp(data, "RECS", 4) == 0) {
        readStructured(data, size);
        return 0;
    }
    readFile(data, size);
    const std::string fixed = withFixedChecksums(data, size);
    if (!fixed.empty())
        readFile(fixed.data(), fixed.size());
    return 0;
}
