#pragma once

#include <cstdint>
#include <vector>

namespace synaptic::data {

// A partition assigns every sample index to exactly one part (edge or region).
using Partition = std::vector<std::vector<std::size_t>>;

// Shuffles the indices with `seed` and deals them round-robin: parts differ in
// size by at most one and each sees the global label mix.
Partition partitionIid(std::size_t sampleCount, std::size_t parts, std::uint64_t seed);

// Label-skewed non-IID split: for each class, the class's samples are divided
// among parts in proportions drawn from Dirichlet(alpha). Small alpha gives
// parts dominated by a few labels; large alpha approaches IID. Deterministic
// for a seed. Throws std::invalid_argument for parts == 0 or alpha <= 0.
Partition partitionDirichlet(const std::vector<std::uint8_t> &labels, std::size_t parts, double alpha,
                             std::uint64_t seed, int numClasses = 10);

// Count of each label among the given sample indices.
std::vector<std::size_t> labelHistogram(const std::vector<std::uint8_t> &labels,
                                        const std::vector<std::size_t> &indices, int numClasses = 10);

} // namespace synaptic::data
