#pragma once

#include "core/engine/tasks/task_model.h"

#include "sim_result.h"
#include "simulation.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::engine {

// What `synaptic-node sim` and bench/strategies ask for: one config, one or
// more strategies run one after another on the same config and seed.
struct SimRunRequest {
    std::string configPath;
    std::string task;                      // a TaskRegistry name, empty: the config's
    bool hotUpdateScenario = false;        // langid: the hot-update scenario instead of the strategies
    bool hotUpdates = true;                // langid: owners forward row changes owner to owner
    std::vector<std::string> strategies;   // empty: the config's strategy
    std::uint64_t stepsPerEdge = 0;
    double virtualSeconds = 0;
    double targetAccuracy = 0.88;
    std::optional<std::uint64_t> seed;     // overrides the config's
    std::uint64_t evalEverySamples = 0;
    bool evaluateRegions = false;
    std::string commandsPath;              // JSON list of timed commands
    std::string device = "cpu";
    int threads = 0;                       // 0 = all cores
    std::string dataDir;                   // overrides the config's
    std::string modelPath;                 // save the final global model here (one strategy only)
    // Applied to the loaded config before anything runs (a benchmark's
    // scenario and codecs); may be empty.
    std::function<void(ClusterConfig &)> editConfig;
};

// Optional hooks around each strategy's run (a recorder attaches here).
struct SimRunHooks {
    std::function<void(const ClusterConfig &, SimOptions &)> prepare; // before the Simulation is built
    std::function<void(const ClusterConfig &, const SimOptions &, Simulation &)> started; // built, before run()
    std::function<void(const StrategyResult &)> finished;
    // The strategy's Simulation is about to go away, after finished() or
    // because its run threw: a watcher of the Simulation lets go here.
    std::function<void()> leaving;
};

// Reads the config and the command list the request names and checks them:
// ConfigError naming the file and field. Loads no data.
void checkSimRequest(const SimRunRequest &request);

// Loads the config (ConfigError on a bad one), the data (DataError), runs
// every strategy and returns their results in order. `onResult` is called
// after each strategy, e.g. to print progress.
std::vector<StrategyResult> runStrategies(const SimRunRequest &request,
                                          const std::function<void(const StrategyResult &)> &onResult = {},
                                          const SimRunHooks &hooks = {});

// The training and test data of the config's task (its loader, from the
// config's data folder), as tensors on `device`, loaded once for every
// strategy of a run. DataError if the files are missing.
using SimData = TaskData;
SimData loadSimData(const ClusterConfig &config, const std::string &device);

// The JSON report: the request, the machine's thread count and one entry per
// strategy (issue 3 §11 fields plus curves).
std::string simReportJson(const SimRunRequest &request, const std::vector<StrategyResult> &results);
// One strategy's entry of that report (a recording keeps it per run).
std::string strategyResultJson(const StrategyResult &result);
// The report from entries made by strategyResultJson() (synaptic-node export).
std::string simReportJson(const SimRunRequest &request, const std::vector<std::string> &strategyEntries, int threads,
                          int blasThreads);
// A fixed-width table for the terminal, with ratios against the first row
// named `baseline` when present.
std::string simResultTable(const std::vector<StrategyResult> &results, const std::string &baseline = "param_server");

} // namespace synaptic::engine
