#pragma once

#include "core/engine/inference/serve_runner.h"
#include "core/engine/progress_meter.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/train_config.h"
#include "core/rpc/live/live_options.h"

#include <optional>
#include <string>
#include <vector>

namespace synaptic::app {

// What `synaptic-node` was asked to do. Parsing is separate from running so
// the flags are checked before any data is loaded.
struct NodeCommand {
    enum class Kind { Train, Sim, Serve, Info, Export, Rerun, Check, Center, Edge, Cluster, Version, Help };
    Kind kind = Kind::Help;
    engine::TrainConfig train;
    engine::SimRunRequest sim;
    engine::ServeRequest serve;
    std::string reportPath;
    std::string recordPath;     // sim --record
    std::string recordingPath;  // info / export / rerun / check FILE
    std::string csvDir;         // export --csv
    std::string tracePath;      // export --trace
    int run = -1;               // export / rerun --run (-1: every run / the first)
    bool json = false;          // info --json
    bool quiet = false;         // --quiet: no progress on stderr
    rpc::CenterOptions center;  // center, and cluster's center
    rpc::EdgeOptions edge;      // edge, and the flags cluster passes to every edge
};

// Parses argv (without argv[0]). Throws engine::ConfigError naming the flag
// and what is wrong; the caller prints it with the usage and exits 2.
NodeCommand parseNodeCommand(const std::vector<std::string> &args);

std::string nodeUsage();

// How a subcommand shows its progress on stderr (--quiet: not at all).
engine::ProgressStyle progressStyle(const NodeCommand &cmd);

} // namespace synaptic::app
