#pragma once

#include "exit_policy.h"
#include "split_predictions.h"

#include "core/engine/sim/sim_events.h"

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace synaptic::engine {

class EventLoop;

// Serving while the cluster trains (issue 6 §2-6): requests arrive at every
// edge (Poisson, knobs.request_rate per virtual second), each edge answers
// with the edge image it holds (block1 + exit head + squeeze of a released
// model) when its exit head is confident enough, else sends the fp16
// features to the center over its real link, which the training traffic
// shares. The center keeps the center half of every image it released, so
// features always meet the half they were made for. Every K center syncs
// (knobs.release_every_syncs) the center releases a new image and ships it
// to every edge over the same links; an edge serves the new version once
// the image has arrived. A read-only edge keeps serving.
//
// As in simulateServing (issue 14 §6): each request costs its node a fixed
// time plus FLOPs / speed, booked on the node's compute queue, which
// training steps and merges share, so requests wait behind steps and steps
// behind requests. An edge learns that the center is unreachable the way a
// real one does: a forward that times out is answered by the edge
// (degraded) and makes it suspect the center; while suspect it answers what
// it would have forwarded itself at once (degraded) and sends a header-only
// probe every probe interval; a probe answered in time ends the suspicion.
// No edge asks the simulator whether a link or the center is up.
// Engine thread only.
class LiveServing {
public:
    // What the simulation lends: its clock and its links (with accounting).
    struct Env {
        EventLoop *loop = nullptr;
        // Sends `bytes` from node to node now; the arrival time, or nullopt
        // when the message is lost or the link is down.
        std::function<std::optional<double>(int from, int to, std::uint64_t bytes)> send;
        // Whether a node is running: a dead edge serves nobody, a dead center
        // neither computes nor replies (what nodes do, not what edges know).
        std::function<bool(int node)> alive;
        // Books `seconds` of compute on the node's queue (shared with
        // training) from now; returns when it is done.
        std::function<double(int node, double seconds)> occupy;
        std::function<double(int edge)> threshold;            // the live knob, with per-edge overrides
        std::function<double(int node, double flops)> computeSeconds;
        std::function<void(SimEvent)> emit;
        // Test-only (issue 15): true when this edge, read-only, drops what
        // it should answer; the serving audit must catch it. May be empty.
        std::function<bool(int edge)> dropsRequest;
    };
    struct Options {
        double ratePerEdge = 0;
        ConfidenceMeasure measure = ConfidenceMeasure::MaxSoftmax;
        int releaseEverySyncs = 8;
        double timeoutSeconds = 0.5;
        double probeSeconds = 1.0;
        double edgeRequestSeconds = 0;   // fixed per-request cost of the edge half
        double centerRequestSeconds = 0; // and of the center half
        std::uint64_t seed = 1;
        int edges = 0;
    };

    // `pool`: the images requests draw from; its first half is the
    // validation split of the threshold sweep, its second half the requests'.
    LiveServing(Env env, Options options, const TensorSet &pool);
    ~LiveServing();

    // Release 0 (the model the run starts from), shipped like every other,
    // and the first arrival at each edge.
    void start(SynapticNet &initial);
    // A center sync happened (a ConsistencyEvent). Returns true when this
    // one makes a release due: the caller then calls release() with the
    // global model once the current event has finished.
    bool onCenterSync();
    void release(SynapticNet &global);
    void setReleaseEverySyncs(int k) { m_options.releaseEverySyncs = k; }
    // Emits an InferenceEvent over what was answered since the last call.
    void report(double interval);

    std::uint64_t edgeImageBytes() const { return m_imageBytes; }
    std::uint64_t servedVersion(int edge) const { return m_edgeVersion[std::size_t(edge)]; }
    bool suspectsCenter(int edge) const { return m_suspect[std::size_t(edge)]; }

private:
    void scheduleArrival(int edge, double after);
    void arrive(int edge);
    void ship(int edge, std::uint64_t version);
    void decide(int edge, double arrival, std::size_t image, std::uint64_t version);
    void forward(int edge, double arrival, std::size_t image, std::uint64_t version, bool exitRight);
    void suspect(int edge);
    void probe(int edge);
    void answer(int edge, double latency, bool atEdge, bool degraded, bool correct);
    void abandon(int edge); // the edge died holding the request
    double now() const;

    Env m_env;
    Options m_options;
    const TensorSet &m_pool;
    std::vector<std::unique_ptr<SplitPredictions>> m_releases; // by version
    std::vector<std::uint64_t> m_edgeVersion;                  // what each edge serves
    std::vector<bool> m_retrying;                              // an image shipment waits for the link
    std::vector<std::mt19937_64> m_rng;                        // per edge
    std::vector<bool> m_suspect;                               // per edge: a forward timed out, no probe answered since
    std::vector<bool> m_probing;                               // per edge: a probe chain is scheduled
    // The serving audit, per edge: requests that arrived, were answered,
    // died with their edge, and are held now.
    std::vector<std::uint64_t> m_arrived, m_answered, m_abandoned, m_pending;
    std::uint64_t m_imageBytes = 0;
    int m_syncsSinceRelease = 0;
    // The interval being accumulated.
    InferenceEvent m_interval;
    std::vector<double> m_latenciesMs;
};

// Bytes of the edge half's parameters and batch-norm statistics in fp32.
std::uint64_t edgeImageBytes(SynapticNet &model);

} // namespace synaptic::engine
