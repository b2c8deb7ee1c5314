#pragma once

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_events.h"
#include "core/engine/sim/sim_result.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/synapse/routing_table.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace synaptic::session {

struct RecorderOptions {
    std::size_t queueCapacity = 1u << 17;  // samples waiting; beyond this they are coalesced (state events never are)
    double chunkWallSeconds = 2.0;         // a chunk is written at least this often: what a crash can lose
    std::size_t chunkRawBytes = 1u << 20;  // ...or once it holds this much
    double keyframeEverySeconds = 10;      // virtual seconds between keyframes
    double routingEverySeconds = 0.25;     // virtual seconds between routing-table samples...
    double routingEveryWallSeconds = 1.0;  // ...or wall seconds, whichever comes first (slow live runs)
};

struct RecorderStats {
    std::uint64_t events = 0;          // written
    std::uint64_t routingSamples = 0;
    std::uint64_t chunks = 0;
    std::uint64_t bytes = 0;           // file size so far
    std::uint64_t coalesced = 0;       // metric and routing samples folded into later ones (the disk fell behind), in the run's end record
    double lastTime = 0;               // virtual seconds of the latest event written
    std::string error;                 // a write error stopped the recording (the run goes on)
};

// Records a session (DESIGN.md §5, issue 5) without ever stalling the engine:
// record() copies the event into a queue that never drops a state event
// (it coalesces metric samples when the disk falls behind, counted) and a
// writer thread encodes, compresses and appends chunks, folds the stream into
// keyframes and writes the footer index on close(). A write error stops the
// recording and is reported in stats(); it never reaches the engine.
//
// Threads: begin/record/end from the engine thread (the one running the
// Simulation), stats()/close() from any.
class SessionRecorder {
public:
    // Creates the file now (throws std::runtime_error naming the path if it
    // cannot). `tool` says who wrote it ("synaptic", "synaptic-node sim").
    SessionRecorder(const std::string &path, const std::string &tool, RecorderOptions options = {});
    ~SessionRecorder(); // close()

    // A run's config and options, so a rerun can reproduce it. `sim` (may be
    // null) is where routing samples come from; it must outlive endRun().
    void beginRun(const engine::ClusterConfig &config, const engine::SimOptions &options,
                  const engine::Simulation *sim);
    void record(const engine::SimEvent &event);
    // `finished` false: the recording stopped before the run did (the GUI's
    // record button); the end record then carries no sim report.
    void endRun(const engine::StrategyResult &result, bool finished = true);
    // An observer for SimOptions::observer that calls record().
    std::function<void(const engine::SimEvent &)> observer();

    // Writes what is queued, the index and the trailer. Idempotent.
    void close();
    RecorderStats stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace synaptic::session
