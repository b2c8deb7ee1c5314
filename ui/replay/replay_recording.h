#pragma once

#include "core/engine/sim/cluster_config.h"
#include "core/session/session_file.h"
#include "replay_index.h"

#include <QString>

namespace synaptic::ui {

// One run of a recording, read whole for replay: its events, routing
// samples, keyframes and config, the index its seeks use, plus what the
// reader found wrong on the way.
struct ReplayRecording {
    QString path;
    int run = 0;
    int runCount = 0;
    session::RunInfo info;
    session::RunData data;
    ReplayIndex index;
    engine::ClusterConfig config;
    std::vector<session::ReadProblem> problems;
    double begin = 0; // virtual seconds covered
    double end = 0;
};

// Reads and indexes run `run` of the recording at `path`; any thread (the
// GUI reads one off its thread: RecordingOpener). `progress` (0..1) may return
// false to cancel: session::Cancelled is thrown. Other failures throw
// std::runtime_error naming the file (not a recording, newer format, no
// such run, a config that does not parse).
ReplayRecording loadRecording(const QString &path, int run, const session::SessionFile::Progress &progress = {});

} // namespace synaptic::ui
