#pragma once

#include "chunk_file.h"
#include "events.pb.h"
#include "session_state.h"

#include "core/engine/sim/sim_events.h"
#include "core/engine/synapse/routing_table.h"

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace synaptic::session {

// Where one chunk is and what it covers (from the footer index, or from a
// scan when the writer never finished).
struct ChunkInfo {
    std::uint64_t offset = 0;
    int run = -1;
    double firstTime = 0;
    double lastTime = 0;
    std::uint64_t firstEvent = 0;
    std::uint32_t events = 0;
    bool keyframe = false;
};

struct RunInfo {
    pb::RunStart start;
    std::optional<pb::RunEnd> end;     // missing: the writer was killed during the run
    double firstTime = 0;
    double lastTime = 0;
    std::uint64_t events = 0;          // recorded events (from the chunks)
};

struct TimedRouting {
    double time = 0;
    std::shared_ptr<const engine::RoutingSnapshot> snapshot;
};

// A keyframe as read with its run: the state the writer had folded, and
// where it falls in the run's events, so a reader that holds the run (the
// GUI's replay) seeks from it without going back to the file.
struct RunKeyframe {
    std::size_t event = 0; // index in RunData::events of the first event after it
    SessionState state;
};

// One run read whole, in stream order.
struct RunData {
    std::vector<engine::SimEvent> events;
    std::vector<TimedRouting> routing;
    std::vector<RunKeyframe> keyframes; // in stream order
};

// Thrown when a Progress callback asked to stop.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

// A recording opened for reading (issue 5). Opening reads the header and the
// footer's time index, nothing else; a file without one (a killed writer) is
// scanned instead and says so in problems(). Throws std::runtime_error
// naming the path for a file that is not a recording or needs a newer reader.
// Not thread-safe; one per thread.
class SessionFile {
public:
    // Returns false to cancel (then Cancelled is thrown).
    using Progress = std::function<bool(double fraction)>;

    explicit SessionFile(const std::string &path, const Progress &progress = {});
    ~SessionFile();

    const std::string &path() const { return m_path; }
    std::uint16_t formatVersion() const;
    const std::string &metadata() const;
    std::uint64_t fileSize() const;
    bool indexed() const { return m_indexed; }
    const std::vector<RunInfo> &runs() const { return m_runs; }
    const std::vector<ChunkInfo> &chunks() const { return m_chunks; }
    // What was found wrong so far (grows as chunks are read), each with its byte offset.
    const std::vector<ReadProblem> &problems() const { return m_problems; }

    // Every event and routing sample of `run`, in order. Unreadable chunks
    // are skipped and added to problems().
    RunData readRun(int run, const Progress &progress = {});
    // The state of `run` at virtual time `t`: from the last keyframe at or
    // before `t`, folded forward. Reads one keyframe's worth of chunks.
    SessionState stateAt(int run, double t);
    // Reads and checks every chunk (checksums, records); returns the problems found.
    std::vector<ReadProblem> verify(const Progress &progress = {});

private:
    std::vector<pb::Record> records(const ChunkInfo &chunk);
    void scan(const Progress &progress);
    void loadIndex(const pb::Index &index);
    void problem(std::uint64_t offset, const std::string &what);

    std::string m_path;
    std::unique_ptr<ChunkReader> m_reader;
    bool m_indexed = false;
    std::vector<ChunkInfo> m_chunks;
    std::vector<RunInfo> m_runs;
    std::vector<ReadProblem> m_problems;
};

} // namespace synaptic::session
