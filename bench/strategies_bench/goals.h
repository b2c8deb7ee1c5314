#pragma once

#include "run_table.h"

#include <string>
#include <vector>

namespace synaptic::bench {

struct Goal {
    std::string what;
    double value = 0;
    std::string op; // ">=" or "<="
    double bound = 0;
    bool met = false;
};

// Issue 14's goals for a scenario, from the 3-seed cells: only those whose
// runs are in `cells` (a goal needing a strategy or codec point that did not
// run is listed in `skipped`, never counted as met or missed). One
// exception: a synaptic cell that never reached the target in every seed
// is a missed goal ("synaptic reaches the target") whatever else ran, since
// no competitor could make up for it.
std::vector<Goal> scenarioGoals(const std::string &scenario, const std::vector<CellStats> &cells,
                                std::vector<std::string> &skipped);

} // namespace synaptic::bench
