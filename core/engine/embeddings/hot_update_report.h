#pragma once

#include "hot_update_sim.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace synaptic::engine {

// One run of the hot-update scenario as JSON (bench/embeddings and
// `synaptic-node sim --task langid --report`) and as lines for a terminal.
nlohmann::json hotUpdateJson(const HotUpdateResult &r);
std::string hotUpdateSummary(const std::string &name, const HotUpdateResult &r);

// The largest gap, in percentage points, between the new language's accuracy
// at the origin region's probe and at any other region's, at the last evaluation.
double finalGapPoints(const HotUpdateResult &r, int originRegion);

} // namespace synaptic::engine
