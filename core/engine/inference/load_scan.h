#pragma once

#include "request_stream.h"
#include "serving_report.h"
#include "serving_sim.h"

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// Serving figures at several request rates, and the load each serving mode
// can carry (issue 14 §6): the same model's answers (computed once), the
// same setup, a fresh Poisson stream per rate.
struct LoadScan {
    const SplitPredictions *answers = nullptr;
    ServingSetup setup;           // its mode is overridden per call
    int edges = 0;
    double seconds = 20;          // virtual seconds of requests per rate
    std::int64_t firstImage = 0;  // requests draw images from [firstImage, endImage)
    std::int64_t endImage = 0;
    std::uint64_t seed = 1;
};

struct LoadPoint {
    double rate = 0;              // requests per virtual second at each edge
    ServingMode mode = ServingMode::EdgeExit;
    ServingSummary summary;
};

LoadPoint serveAtRate(const LoadScan &scan, double rate, ServingMode mode);

// The capacity of a mode: the highest rate per edge at which p99 latency
// stays at or under `p99LimitMs`. Rates double from `firstRate` until p99
// passes the limit, then bisect between the last rate under and the first
// over until they are within `tolerance` of each other. `found` is false
// when even `maxRate` stays under (rate = the last one tried) or the first
// rate is already over (rate = 0). Every rate served is kept in `points`.
struct Capacity {
    double rate = 0;
    bool found = false;
    std::vector<LoadPoint> points; // in the order served
};
Capacity findCapacity(const LoadScan &scan, ServingMode mode, double p99LimitMs = 200, double firstRate = 5,
                      double maxRate = 20480, double tolerance = 0.05);

} // namespace synaptic::engine
