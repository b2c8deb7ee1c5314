#pragma once

#include <algorithm>
#include <cstdint>

namespace synaptic::engine {

// How often a run evaluates its model when nobody says (issue 18 §3). By
// samples, not virtual seconds: the config's evaluation.every_seconds (10)
// is longer than a default run, so a headless recording charted nothing but
// its final point. The app evaluates every kDefaultEvalEverySamples (its
// runs usually go on until stopped); `synaptic-node sim` about
// kDefaultEvalPointsPerRun times over its step budget.

// A run without a step budget (the app's, until stopped; a virtual-time
// budget): every 7,680 samples the whole cluster trained (120 batches of 64).
inline constexpr std::uint64_t kDefaultEvalEverySamples = 7680;

// A run with a step budget: about this many evaluations over the run,
// whatever its length, so short runs chart too.
inline constexpr std::uint64_t kDefaultEvalPointsPerRun = 20;

// `samplesPerStep`: what one step of every edge trains (batch x edges).
inline std::uint64_t defaultEvalEverySamples(std::uint64_t samplesPerStep, std::uint64_t stepsPerEdge) {
    if (stepsPerEdge == 0 || samplesPerStep == 0)
        return kDefaultEvalEverySamples;
    return std::max<std::uint64_t>(1, stepsPerEdge / kDefaultEvalPointsPerRun) * samplesPerStep;
}

} // namespace synaptic::engine
