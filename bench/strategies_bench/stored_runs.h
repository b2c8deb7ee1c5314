#pragma once

#include "run_table.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace synaptic::bench {

// Runs read back from earlier bench/strategies reports, so that seeds run
// as separate processes (one per core, or on several machines) are judged
// together: the same cells, means and goals as one run with --seeds N.
struct StoredRuns {
    std::vector<BenchRun> runs;
    nlohmann::json runsJson = nlohmann::json::array(); // the entries as stored, curves included
    std::string scenario, config;
    unsigned long long stepsPerEdge = 0, evalEverySamples = 0;
    double targetAccuracy = 0;
    nlohmann::json commands = nlohmann::json::array(); // how each report was made (null: not said)
};

// Reads every report in `paths`. Throws std::runtime_error naming the file
// and the field when one cannot be read, lacks a field, disagrees with the
// first on the scenario, config, steps per edge, target or evaluation cadence, or repeats a run
// (the same strategy, codec and seed) another report already holds.
StoredRuns loadStoredRuns(const std::vector<std::string> &paths);

} // namespace synaptic::bench
