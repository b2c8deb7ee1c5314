#pragma once

#include "request_stream.h"
#include "split_predictions.h"

#include "core/engine/sim/link.h"

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::engine {

enum class ServingMode {
    EdgeExit,   // the edge answers when its exit head is confident, else forwards fp16 features
    CenterOnly  // the baseline: every raw image goes to the center, which runs the whole model
};

// Sizes on the wire. A request id travels with every message; the raw
// image is the IDX file's 784 bytes (uint8), the features 196 fp16 values.
struct ServingWire {
    static constexpr std::uint64_t kHeaderBytes = 8;
    static constexpr std::uint64_t kRawImageBytes = 28 * 28;
    static constexpr std::uint64_t kReplyBytes = kHeaderBytes + 4; // id + class + confidence as fp16 + padding
    static std::uint64_t featureBytes(); // 4*7*7 values x 2 bytes
};

// One serving simulation's setup: who answers with what, how fast, over
// which links. Virtual time, as the training simulation (DESIGN.md §3).
struct ServingSetup {
    ServingMode mode = ServingMode::EdgeExit;
    double threshold = 0.85;
    std::vector<double> edgeThreshold;   // per edge; NaN (or absent) = `threshold`
    std::vector<double> edgeGflops;      // per edge: compute model, FLOPs / speed
    double centerGflops = 1000;
    LinkSpec edgeCenter{0.040, 100e6, 0.0, true}; // each edge's own link, both directions
    std::vector<bool> centerReachable;   // per edge; false = partitioned from the center (absent = true)
    // A forward whose answer has not come back by then (lost, or the link
    // went down) is answered by the edge's exit head, marked degraded.
    double timeoutSeconds = 0.5;
    std::uint64_t seed = 1;              // link loss draws

    double thresholdOf(int edge) const;
    bool reachable(int edge) const;
};

struct ServedRequest {
    std::uint64_t id = 0;
    int edge = 0;
    double arrival = 0;
    double latency = 0;     // virtual seconds from arrival to the answer at the edge
    bool atEdge = false;    // answered by the exit head (includes degraded answers)
    bool degraded = false;  // the edge answered because the center could not
    bool correct = false;
    float confidence = 0;
};

struct ServingOutcome {
    std::vector<ServedRequest> served;       // in request order
    std::uint64_t bytesToCenter = 0;         // every message sent edge -> center, headers included
    std::uint64_t bytesFromCenter = 0;
    std::uint64_t rawInputBytes = 0;         // what sending every raw image would cost (784 B each, no header)
    std::uint64_t lostMessages = 0;
};

// Runs the request stream through the split model's precomputed answers on
// a discrete-event loop: per edge a FIFO compute queue, per edge a link in
// each direction (latency + bandwidth queue + loss + partition), one FIFO
// compute queue at the center. Throws std::invalid_argument when the setup
// and the requests disagree (an edge without gflops, an image out of range).
ServingOutcome simulateServing(const SplitPredictions &answers, const std::vector<InferenceRequest> &requests,
                               const ServingSetup &setup);

// Virtual seconds of the edge half, the center half and the whole model
// for one sample on a node of `gflops`.
double edgeSecondsPerRequest(double gflops);
double centerSecondsPerRequest(double gflops);
double fullModelSecondsPerRequest(double gflops);

} // namespace synaptic::engine
