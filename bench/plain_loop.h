#pragma once

#include "core/engine/tensor_data.h"

#include <cstdint>

namespace synaptic::bench {

// The baseline every engine-cost goal is measured against: the loop one
// writes by hand with LibTorch. Same model, same losses (main + weighted exit
// head), same Adam and cosine schedule, same shuffling and batching; no
// progress reporting, no pause/stop checks. One pass over `train`.
double plainLoopSamplesPerSecond(const engine::TensorSet &train, int batch, double lr, double exitWeight,
                                 std::uint64_t seed);

} // namespace synaptic::bench
