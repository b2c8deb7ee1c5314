#pragma once

#include "serving_sim.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// The figures of one serving run (issue 6 §6). Accuracies are fractions;
// an accuracy over no request is NaN (JSON null).
struct ServingSummary {
    std::uint64_t requests = 0;
    std::uint64_t atEdge = 0;      // exit-head answers, degraded ones included
    std::uint64_t atCenter = 0;
    std::uint64_t degraded = 0;
    double edgeShare = 0;
    double accuracy = 0;           // overall
    double accuracyEdge = 0;       // over the edge's answers
    double accuracyCenter = 0;     // over the center's answers
    double p50Ms = 0, p95Ms = 0, p99Ms = 0, meanMs = 0, maxMs = 0;
    std::uint64_t bytesToCenter = 0;
    std::uint64_t bytesFromCenter = 0;
    std::uint64_t rawInputBytes = 0;
    std::uint64_t lostMessages = 0;
    std::uint64_t probes = 0;      // reachability probes the edges sent
    std::vector<std::uint64_t> atEdgePerEdge, requestsPerEdge, degradedPerEdge;
};

ServingSummary summarize(const ServingOutcome &outcome, int edges);

// Nearest-rank percentile (q in [0, 1]) of `values`; NaN for none.
double percentile(std::vector<double> values, double q);

// One point of the threshold sweep: what serving at `threshold` would do on
// the validation images (every request reaches the center; no latency).
struct SweepPoint {
    double threshold = 0;
    double edgeShare = 0;
    double accuracy = 0;      // overall: the edge's answer where it exits, the center's elsewhere
    double accuracyEdge = 0;  // NaN when nothing exits
};

// Sweeps `thresholds` over images [begin, end) of the predictions.
std::vector<SweepPoint> thresholdSweep(const SplitPredictions &answers, std::int64_t begin, std::int64_t end,
                                       const std::vector<double> &thresholds);
// 0, 0.05, ..., 0.95, 0.97, 0.99, 1.
std::vector<double> defaultSweepThresholds();

nlohmann::json toJson(const ServingSummary &summary);
nlohmann::json toJson(const std::vector<SweepPoint> &sweep);

} // namespace synaptic::engine
