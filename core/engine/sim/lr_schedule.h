#pragma once

#include <cstdint>

namespace synaptic::engine {

struct ClusterConfig;

// The learning rate a step takes at a point of the step budget (issue 14):
// the configured rate until `lr_decay_from` of the budget is used, then a
// half cosine down to `lr_final` times it at the budget's end. Every
// strategy's optimizer steps with it, so a comparison at the same sample
// budget stays fair: one strategy's annealing is every strategy's.
// `stepsDone` counts the steps whose gradients this update applies, the
// newest included; with no budget (0: a cluster that trains until stopped)
// the rate stays constant, since "the end" is not known. Nodes call it
// through NodeContext::learningRate, which places a restarted live node on
// its whole budget.
double scheduledLearningRate(const ClusterConfig &c, std::uint64_t stepsDone, std::uint64_t budget);

} // namespace synaptic::engine
