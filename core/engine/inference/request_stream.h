#pragma once

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// One inference request: an image of the test set arriving at an edge.
struct InferenceRequest {
    std::uint64_t id = 0;   // position in arrival order
    double arrival = 0;     // virtual seconds
    int edge = 0;
    std::int64_t image = 0; // index into the image set
};

// Poisson arrivals (exponential gaps) at `ratePerEdge` requests per virtual
// second at each of `edges` edges over [0, seconds), each drawing an image
// uniformly from [firstImage, endImage). Sorted by arrival time (ties by edge);
// deterministic for `seed`, and each edge's stream depends only on the seed
// and its index, so adding an edge does not change the others'.
// Throws std::invalid_argument for a non-positive rate or an empty range.
std::vector<InferenceRequest> poissonRequests(int edges, double ratePerEdge, double seconds, std::int64_t firstImage,
                                              std::int64_t endImage, std::uint64_t seed);

} // namespace synaptic::engine
