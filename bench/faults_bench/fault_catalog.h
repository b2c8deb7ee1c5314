#pragma once

#include "core/engine/sim/sim_command.h"

#include <functional>
#include <string>
#include <vector>

namespace synaptic::engine {
class Simulation;
}

namespace synaptic::bench {

// When a scenario's fault starts and ends, in virtual seconds; the
// catalogue places every fault inside this span so runs of every length
// see the same story.
struct FaultWindow {
    double start = 1.0;
    double end = 2.5;
};

// One fault of the matrix (issue 15 §2/§4): the commands that inject and
// heal it, built against the run's plan (which edge owns what), and the
// strategies it applies to.
struct FaultScenario {
    std::string name;
    std::string what; // one line for the table
    std::vector<std::string> strategies;
    // Whether the fault ends (a heal or a revive at window.end): recovery
    // is timed from there. Faults that last the whole run have none.
    bool heals = true;
    // Submits the fault's commands to the built simulation.
    std::function<void(engine::Simulation &, const FaultWindow &)> inject;
};

// Every fault the matrix runs, in table order (at least 12 types), after
// the "control" row (no fault: the noise floor of the comparison).
const std::vector<FaultScenario> &faultCatalog();
// The subset CI runs (bench/faults --quick).
std::vector<std::string> quickFaults();

} // namespace synaptic::bench
