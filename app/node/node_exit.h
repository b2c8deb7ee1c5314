#pragma once

#include "node_cli.h"

#include "core/engine/sim/sim_runner.h"

namespace synaptic::app {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1; // the run itself failed (data, device, I/O), or the file is not readable
constexpr int kExitUsage = 2;   // bad flags or config
constexpr int kExitDamaged = 3; // a recording read only in part, or a rerun that differs

int runSim(const NodeCommand &cmd, const engine::SimRunHooks &hooks = {});

} // namespace synaptic::app
