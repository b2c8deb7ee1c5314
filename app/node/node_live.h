#pragma once

#include "node_cli.h"

namespace synaptic::app {

// The live driver's processes (issue 13 §3). Each blocks until Ctrl+C /
// SIGTERM (or the run ends with --exit-when-done) and returns an exit code.
int runCenter(const NodeCommand &cmd);
int runEdge(const NodeCommand &cmd);
int runCluster(const NodeCommand &cmd);

// An edge killed from the control plane exits with this code at once.
constexpr int kExitKilled = 137;

} // namespace synaptic::app
