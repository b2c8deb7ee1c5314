#pragma once

#include "core/session/session_file.h"

#include <cstddef>
#include <vector>

namespace synaptic::ui {

// What a replay seek needs besides the run's events and keyframes (DESIGN.md
// §5: seeks use keyframes). A seek starts from the last keyframe before its
// target: the keyframe gives each edge's lease, this index gives what else
// the views show of the time before it, so the seek never feeds every event
// since the start through every view:
// - the events the charts draw (the charts show the whole run), with each
//   center sync's drift rows folded into one per region — the worst lag and
//   drift, all ChartFeeder draws of them — so there are far fewer;
// - where the events are whose effect lasts and no keyframe holds (commands:
//   faults on the topology, serving knobs, moves in flight; edge images and
//   inference intervals: the serving panel's totals);
// - where the events are that write a log line (the log keeps the latest).
// Built once with the recording, off the GUI thread; values only.
struct ReplayIndex {
    std::vector<engine::SimEvent> chartEvents;
    std::vector<std::size_t> chartEventAt; // position in the run each stands for (a fold: its last row)
    std::vector<std::size_t> lasting;      // positions, ascending
    std::vector<std::size_t> logged;       // positions, ascending
};

// Indexes `run` for a cluster of `regions` regions. Folds never span a
// keyframe, so the chart events before a keyframe stand for exactly the
// events before it.
ReplayIndex indexRun(const session::RunData &run, int regions);

} // namespace synaptic::ui
