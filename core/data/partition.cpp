#include "partition.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace synaptic::data {

namespace {

// std::gamma_distribution is not specified bit-for-bit across standard
// libraries; Marsaglia-Tsang keeps partitions identical everywhere for a seed.
double sampleGamma(double shape, std::mt19937_64 &rng) {
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    if (shape < 1.0) {
        // Boost: Gamma(a) = Gamma(a + 1) * U^(1/a).
        const double u = std::max(uniform(rng), 1e-300);
        return sampleGamma(shape + 1.0, rng) * std::pow(u, 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        // Box-Muller normal, also for cross-library determinism.
        const double u1 = std::max(uniform(rng), 1e-300);
        const double u2 = uniform(rng);
        const double x = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
        const double v = std::pow(1.0 + c * x, 3);
        if (v <= 0)
            continue;
        const double u = uniform(rng);
        if (std::log(std::max(u, 1e-300)) < 0.5 * x * x + d - d * v + d * std::log(v))
            return d * v;
    }
}

void shuffle(std::vector<std::size_t> &v, std::mt19937_64 &rng) {
    // Fisher-Yates with our own index draw: std::shuffle's use of the engine
    // is implementation-defined.
    for (std::size_t i = v.size(); i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(rng() % i);
        std::swap(v[i - 1], v[j]);
    }
}

} // namespace

Partition partitionIid(std::size_t sampleCount, std::size_t parts, std::uint64_t seed) {
    if (parts == 0)
        throw std::invalid_argument("partitionIid: parts must be at least 1");
    std::vector<std::size_t> order(sampleCount);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(seed);
    shuffle(order, rng);
    Partition result(parts);
    for (std::size_t i = 0; i < order.size(); ++i)
        result[i % parts].push_back(order[i]);
    return result;
}

Partition partitionDirichlet(const std::vector<std::uint8_t> &labels, std::size_t parts, double alpha,
                             std::uint64_t seed, int numClasses) {
    if (parts == 0)
        throw std::invalid_argument("partitionDirichlet: parts must be at least 1");
    if (!(alpha > 0.0))
        throw std::invalid_argument("partitionDirichlet: alpha must be > 0");
    std::mt19937_64 rng(seed);
    std::vector<std::vector<std::size_t>> byClass(static_cast<std::size_t>(numClasses));
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] >= numClasses)
            throw std::invalid_argument("partitionDirichlet: label " + std::to_string(labels[i]) + " at index " +
                                        std::to_string(i) + " is outside 0.." + std::to_string(numClasses - 1));
        byClass[labels[i]].push_back(i);
    }

    Partition result(parts);
    for (auto &members : byClass) {
        shuffle(members, rng);
        std::vector<double> weights(parts);
        double total = 0;
        for (auto &w : weights) {
            w = sampleGamma(alpha, rng);
            total += w;
        }
        if (!(total > 0.0) || !std::isfinite(total)) {
            // Tiny alpha: every draw underflowed. The limit of Dirichlet as
            // alpha -> 0 puts the whole class in one part.
            std::fill(weights.begin(), weights.end(), 0.0);
            weights[static_cast<std::size_t>(rng() % parts)] = 1.0;
            total = 1.0;
        }
        // Cut points from the cumulative proportions; the last part takes the
        // remainder so every sample is assigned exactly once.
        std::size_t start = 0;
        double cumulative = 0;
        for (std::size_t p = 0; p < parts; ++p) {
            cumulative += weights[p] / total;
            const std::size_t end = p + 1 == parts
                                        ? members.size()
                                        : std::min(members.size(), static_cast<std::size_t>(
                                                                       cumulative * static_cast<double>(members.size())));
            for (std::size_t i = start; i < end; ++i)
                result[p].push_back(members[i]);
            start = std::max(start, end);
        }
    }
    for (auto &part : result)
        std::sort(part.begin(), part.end());
    return result;
}

std::vector<std::size_t> labelHistogram(const std::vector<std::uint8_t> &labels,
                                        const std::vector<std::size_t> &indices, int numClasses) {
    std::vector<std::size_t> counts(static_cast<std::size_t>(numClasses), 0);
    for (std::size_t i : indices)
        if (i < labels.size() && labels[i] < numClasses)
            ++counts[labels[i]];
    return counts;
}

} // namespace synaptic::data
