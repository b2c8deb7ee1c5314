#include "request_stream.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace synaptic::engine {

std::vector<InferenceRequest> poissonRequests(int edges, double ratePerEdge, double seconds, std::int64_t firstImage,
                                              std::int64_t endImage, std::uint64_t seed) {
    if (!(ratePerEdge > 0))
        throw std::invalid_argument("request rate must be > 0 per edge, got " + std::to_string(ratePerEdge));
    if (edges < 1 || !(seconds > 0))
        throw std::invalid_argument("request stream needs at least one edge and a positive duration");
    if (endImage <= firstImage)
        throw std::invalid_argument("request stream: empty image range [" + std::to_string(firstImage) + ", " +
                                    std::to_string(endImage) + ")");
    std::vector<InferenceRequest> out;
    for (int e = 0; e < edges; ++e) {
        std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + std::uint64_t(e) + 1);
        std::exponential_distribution<double> gap(ratePerEdge);
        std::uniform_int_distribution<std::int64_t> image(firstImage, endImage - 1);
        for (double t = gap(rng); t < seconds; t += gap(rng))
            out.push_back({0, t, e, image(rng)});
    }
    std::sort(out.begin(), out.end(), [](const InferenceRequest &a, const InferenceRequest &b) {
        return a.arrival != b.arrival ? a.arrival < b.arrival : a.edge < b.edge;
    });
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i].id = i;
    return out;
}

} // namespace synaptic::engine
