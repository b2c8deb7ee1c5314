#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::ui {

// What a center's ClusterDescription says, as plain values the reader
// thread copies to the GUI thread (DESIGN.md §4: copies, never pointers
// into another thread's state).
struct ClusterStatus {
    struct Node {
        std::string name;
        std::string address;
        bool up = false;
    };
    std::string runId;
    std::string strategy;
    std::string configJson;
    double clusterTime = 0; // seconds on the cluster's clock
    std::uint64_t samples = 0;
    bool finished = false;
    double finalAccuracy = 0; // NaN until finished
    std::uint64_t wireBytes = 0;
    std::vector<Node> nodes; // the center first, then every edge
};

} // namespace synaptic::ui
