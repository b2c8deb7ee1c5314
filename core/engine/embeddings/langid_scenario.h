#pragma once

#include "hot_update_sim.h"

#include "core/engine/sim/sim_runner.h"

#include <functional>

namespace synaptic::engine {

// `synaptic-node sim --task langid`: loads the request's cluster config and
// the fortune corpus (--data: its folder), runs the hot-update scenario with
// the request's seed, duration (--virtual-seconds) and hot updates on or off.
// ConfigError / DataError on bad input, naming the file.
HotUpdateResult runLangIdScenario(const SimRunRequest &request,
                                  const std::function<void(const HotUpdateProgress &)> &progress = {});

} // namespace synaptic::engine
