#pragma once

#include "session_file.h"

#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"

#include <string>

namespace synaptic::session {

// The run's config and options exactly as recorded, with every command the
// engine applied or refused pinned to the command boundary where it landed
// (SimCommand::atBoundary), so running it again replays the same stream.
// Throws std::runtime_error if the run cannot be rerun: it was recorded from
// the middle (GUI record button), or its config does not parse.
struct RerunPlan {
    engine::ClusterConfig config;
    engine::SimOptions options;
    int threads = 0;
    int blasThreads = 0; // OpenBLAS's recorded pool; -1: another BLAS; 0: not recorded
    double until = 0; // virtual seconds of the last recorded event
};
RerunPlan rerunPlan(const RunInfo &run, const RunData &recorded);

struct RerunResult {
    std::uint64_t compared = 0;        // events compared, in order
    std::uint64_t metricsCompared = 0; // of which metric events (every field bit for bit)
    std::uint64_t recorded = 0;
    bool identical = false;
    std::string firstDifference;       // "event 1234: recorded ... / rerun ..."
    // The recording's writer fell behind and folded (or, before issue 15,
    // dropped) samples: only state events could be compared, in order.
    bool statesOnly = false;
};

// Runs the simulator again from the recording and compares the streams
// event by event (canonical text: doubles exactly). Loads the dataset the
// config names; `threads` 0 = the recorded count. `hooks` watch the rerun
// as they watch runStrategies (a progress meter); prepare() must keep the
// observer it finds (the comparison) in its chain.
RerunResult rerunAndCompare(const RunInfo &run, const RunData &recorded, int threads = 0,
                            const engine::SimRunHooks &hooks = {});

} // namespace synaptic::session
