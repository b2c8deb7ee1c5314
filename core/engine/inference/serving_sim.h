#pragma once

#include "request_stream.h"
#include "split_predictions.h"

#include "core/engine/sim/cluster_config.h"
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

// A time-windowed cut of one edge's link to the center (both directions):
// a message sent in [from, until) is dropped. Messages already on the wire
// when the cut starts arrive.
struct LinkCut {
    int edge = 0;
    double from = 0;
    double until = 0;
};

// One serving simulation's setup: who answers with what, how fast, over
// which links. Virtual time, as the training simulation (DESIGN.md §3).
//
// Compute (issue 14 §6): a request costs its node a fixed time (per-request
// overhead: the serving.*_request_ms figures, measured) plus FLOPs / speed.
// Each edge has one FIFO compute queue that it shares with training: with
// trainStepSeconds > 0 the edge trains back to back whenever no request
// waits, so a request that arrives during a step starts when that step
// ends. The center here serves only (its merges are rare next to requests).
//
// Reachability is learned, not told: an edge forwards until a forward times
// out; then it treats the center as suspect, answers what it would have
// forwarded itself at once (degraded), and probes the center every
// probeSeconds; a probe answered within the timeout ends the suspicion.
// centerReachable, edgeCenter.up and cuts only make the link drop messages;
// no edge reads them.
struct ServingSetup {
    ServingMode mode = ServingMode::EdgeExit;
    double threshold = 0.85;
    std::vector<double> edgeThreshold;   // per edge; NaN (or absent) = `threshold`
    std::vector<double> edgeGflops;      // per edge: compute model, FLOPs / speed
    double centerGflops = 1000;
    // Fixed seconds per request (on top of FLOPs / speed); defaults as the config's.
    double edgeRequestSeconds = ServingKnobs{}.edgeRequestMs / 1e3;
    double centerRequestSeconds = ServingKnobs{}.centerRequestMs / 1e3;
    double centerFullRequestSeconds = ServingKnobs{}.centerFullRequestMs / 1e3;
    // Virtual seconds of one training step at each edge (0: the edge only
    // serves); runServe sets them from the config's batch and each edge's
    // gflops, as the training simulation charges a step.
    std::vector<double> trainStepSeconds; // per edge; absent = 0
    LinkSpec edgeCenter{0.040, 100e6, 0.0, true}; // each edge's own link, both directions
    std::vector<bool> centerReachable;   // per edge; false = the link drops everything (absent = true)
    std::vector<LinkCut> cuts;           // windows in which an edge's link drops everything
    // A forward whose answer has not come back by then (lost, or the link
    // went down) is answered by the edge's exit head, marked degraded; a
    // probe answered later than this does not count.
    double timeoutSeconds = 0.5;
    double probeSeconds = ServingKnobs{}.probeMs / 1e3;
    std::uint64_t seed = 1;              // link loss draws

    double thresholdOf(int edge) const;
    double trainStepOf(int edge) const;
    // Whether the edge's link drops a message sent at `time`: physics, for
    // the links; never an edge's knowledge.
    bool linkCut(int edge, double time) const;
};

struct ServedRequest {
    std::uint64_t id = 0;
    int edge = 0;
    double arrival = 0;
    double latency = 0;     // virtual seconds from arrival to the answer at the edge
    bool atEdge = false;    // answered by the exit head (includes degraded answers)
    bool degraded = false;  // the edge answered because the center could not (timed out, or suspect)
    bool forwarded = false; // sent to the center (whether or not its answer came in time)
    bool correct = false;
    float confidence = 0;
};

struct ServingOutcome {
    std::vector<ServedRequest> served;       // in request order
    std::uint64_t bytesToCenter = 0;         // every message sent edge -> center, headers included
    std::uint64_t bytesFromCenter = 0;
    std::uint64_t rawInputBytes = 0;         // what sending every raw image would cost (784 B each, no header)
    std::uint64_t lostMessages = 0;          // lost or dropped by a cut, probes included
    std::uint64_t probes = 0;                // probes sent (header bytes each way)
};

// Runs the request stream through the split model's precomputed answers on
// a discrete-event loop: per edge a FIFO compute queue shared with training,
// per edge a link in each direction (latency + bandwidth queue + loss +
// partition and cuts), one FIFO compute queue at the center. Throws
// std::invalid_argument when the setup and the requests disagree (an edge
// without gflops, an image out of range) or a cost is negative.
ServingOutcome simulateServing(const SplitPredictions &answers, const std::vector<InferenceRequest> &requests,
                               const ServingSetup &setup);

// Virtual seconds of the edge half, the center half and the whole model
// for one sample on a node of `gflops` (FLOPs only; the fixed per-request
// cost comes on top).
double edgeSecondsPerRequest(double gflops);
double centerSecondsPerRequest(double gflops);
double fullModelSecondsPerRequest(double gflops);
// One training step of `batch` samples on a node of `gflops`, as the
// training simulation charges it (NodeContext::trainStepSeconds).
double edgeTrainStepSeconds(int batch, double gflops);

} // namespace synaptic::engine
