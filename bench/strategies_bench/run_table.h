#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::bench {

// One run of bench/strategies: a strategy with a codec point on a scenario
// and seed, and what it measured.
struct BenchRun {
    std::string strategy, codec, scenario;
    std::uint64_t seed = 0;
    double finalAccuracy = 0;
    std::optional<double> timeToTarget;        // virtual seconds
    std::optional<std::uint64_t> wanToTarget;  // WAN bytes when the target was first reached
    std::uint64_t bytesToCenter = 0, wanBytes = 0, totalBytes = 0;
    double virtualSeconds = 0, wallSeconds = 0;
};

// Mean and spread over the seeds of one (strategy, codec) cell.
struct CellStats {
    std::string strategy, codec;
    int runs = 0;
    double accuracyMean = 0, accuracyMin = 0, accuracyMax = 0, accuracyStd = 0;
    std::optional<double> timeToTargetMean;       // only when every seed reached it
    std::optional<double> wanToTargetMean;        // likewise
    double centerMean = 0, wanMean = 0, totalMean = 0;
};

std::vector<CellStats> summarize(const std::vector<BenchRun> &runs);
const CellStats *findCell(const std::vector<CellStats> &cells, const std::string &strategy, const std::string &codec);

} // namespace synaptic::bench
