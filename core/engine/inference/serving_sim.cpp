#include "serving_sim.h"

#include "core/engine/sim/event_loop.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace synaptic::engine {

std::uint64_t ServingWire::featureBytes() {
    std::uint64_t values = 1;
    for (auto d : SynapticNetImpl::featureShape())
        values *= std::uint64_t(d);
    return values * 2; // fp16
}

double ServingSetup::thresholdOf(int edge) const {
    if (edge >= 0 && std::size_t(edge) < edgeThreshold.size() && !std::isnan(edgeThreshold[std::size_t(edge)]))
        return edgeThreshold[std::size_t(edge)];
    return threshold;
}

double ServingSetup::trainStepOf(int edge) const {
    return edge >= 0 && std::size_t(edge) < trainStepSeconds.size() ? trainStepSeconds[std::size_t(edge)] : 0.0;
}

bool ServingSetup::linkCut(int edge, double time) const {
    if (!edgeCenter.up)
        return true;
    if (edge >= 0 && std::size_t(edge) < centerReachable.size() && !centerReachable[std::size_t(edge)])
        return true;
    for (const auto &c : cuts)
        if (c.edge == edge && time >= c.from && time < c.until)
            return true;
    return false;
}

double edgeSecondsPerRequest(double gflops) {
    return 2.0 * double(SynapticNetImpl::edgeMacsPerSample()) / (gflops * 1e9);
}
double centerSecondsPerRequest(double gflops) {
    return 2.0 * double(SynapticNetImpl::centerMacsPerSample()) / (gflops * 1e9);
}
double fullModelSecondsPerRequest(double gflops) {
    return 2.0 * double(SynapticNetImpl::forwardMacsPerSample()) / (gflops * 1e9);
}
double edgeTrainStepSeconds(int batch, double gflops) {
    // Forward and backward, about 3x the forward's multiply-adds, 2 FLOPs
    // each: the same charge as ModelSetup::trainFlopsPerSample (sim_world.cpp).
    return 6.0 * double(SynapticNetImpl::forwardMacsPerSample()) * double(batch) / (gflops * 1e9);
}

namespace {

// What one edge has learned about the center.
struct EdgeView {
    bool suspect = false;
    bool probing = false; // a probe chain is scheduled
};

// The state of one run; lives on the stack of simulateServing.
struct Run {
    const SplitPredictions &answers;
    const std::vector<InferenceRequest> &requests;
    const ServingSetup &setup;
    ServingOutcome out;
    EventLoop loop;
    std::vector<Link> up, down;
    std::vector<double> edgeFree; // when each edge's last request is done (training resumes then)
    std::vector<EdgeView> view;
    std::vector<bool> answered;   // per request: the first answer wins
    double centerFree = 0;
    double lastArrival = 0;       // probing stops after it: nothing is left to serve

    void answerAtEdge(std::size_t i, double at, bool degraded) {
        ServedRequest &s = out.served[i];
        const std::int64_t img = requests[i].image;
        answered[i] = true;
        s.atEdge = true;
        s.degraded = degraded;
        s.correct = answers.exitClass[std::size_t(img)] == answers.label[std::size_t(img)];
        s.latency = at - s.arrival;
    }

    // The edge's compute queue, shared with training: a request that finds
    // the edge training waits for the running step to end (steps of
    // `step` tile the time since the edge last became free); one that finds
    // requests queued waits behind them (training yields to waiting requests).
    // Must be called in time order (from events), as the queue is.
    double edgeCompute(int edge, double readyAt) {
        double &free = edgeFree[std::size_t(edge)];
        const double step = setup.trainStepOf(edge);
        double start = std::max(readyAt, free);
        if (readyAt > free && step > 0)
            start = std::max(readyAt, free + std::ceil((readyAt - free) / step) * step);
        free = start + setup.edgeRequestSeconds + edgeSecondsPerRequest(setup.edgeGflops[std::size_t(edge)]);
        return free;
    }

    // Sends over one direction of an edge's link; nullopt when it is lost
    // or cut (a cut drops without occupying the link).
    std::optional<double> send(std::vector<Link> &links, int edge, double at, std::uint64_t bytes) {
        const auto arrival = setup.linkCut(edge, at) ? std::nullopt : links[std::size_t(edge)].send(at, bytes);
        if (!arrival)
            ++out.lostMessages;
        return arrival;
    }

    // The edge sends `bytes` for request i at `sentAt`; the center computes
    // for `centerSeconds` and replies. Whichever comes first answers: the
    // reply, or the edge itself at the deadline, which also makes the edge
    // suspect the center.
    void forward(std::size_t i, double sentAt, std::uint64_t bytes, double centerSeconds, bool fullModel) {
        const int edge = requests[i].edge;
        const double deadline = sentAt + setup.timeoutSeconds;
        out.served[i].forwarded = true;
        out.bytesToCenter += bytes;
        loop.at(deadline, [this, i, deadline, fullModel] {
            if (!answered[i])
                timedOut(i, deadline, fullModel);
        });
        const auto atCenter = send(up, edge, sentAt, bytes);
        if (!atCenter)
            return;
        loop.at(*atCenter, [this, i, edge, deadline, centerSeconds, fullModel] {
            // The center computes whether or not the edge still waits: it
            // cannot know.
            const double start = std::max(loop.now(), centerFree);
            centerFree = start + centerSeconds;
            loop.at(centerFree, [this, i, edge, deadline, fullModel] {
                out.bytesFromCenter += ServingWire::kReplyBytes;
                const auto back = send(down, edge, loop.now(), ServingWire::kReplyBytes);
                if (!back || *back > deadline)
                    return; // the deadline answers
                loop.at(*back, [this, i, fullModel] {
                    if (answered[i])
                        return;
                    answered[i] = true;
                    ServedRequest &s = out.served[i];
                    const std::int64_t img = requests[i].image;
                    const auto &classes = fullModel ? answers.fullClass : answers.centerClass;
                    s.correct = classes[std::size_t(img)] == answers.label[std::size_t(img)];
                    s.latency = loop.now() - s.arrival;
                });
            });
        });
    }

    // The center did not answer in time: the edge answers with its exit head
    // (already computed in edge-exit mode; computed now in center-only mode)
    // and suspects the center from now on.
    void timedOut(std::size_t i, double deadline, bool centerOnly) {
        const int edge = requests[i].edge;
        suspect(edge);
        answerAtEdge(i, centerOnly ? edgeCompute(edge, deadline) : deadline, true);
    }

    void suspect(int edge) {
        EdgeView &v = view[std::size_t(edge)];
        v.suspect = true;
        if (!v.probing) {
            v.probing = true;
            loop.after(setup.probeSeconds, [this, edge] { probe(edge); });
        }
    }

    // A header-only round trip over the real link; answered in time, it ends
    // the suspicion. The center answers probes without computing.
    void probe(int edge) {
        EdgeView &v = view[std::size_t(edge)];
        if (!v.suspect || loop.now() > lastArrival) {
            v.probing = false;
            return;
        }
        const double sent = loop.now();
        ++out.probes;
        out.bytesToCenter += ServingWire::kHeaderBytes;
        if (const auto atCenter = send(up, edge, sent, ServingWire::kHeaderBytes))
            loop.at(*atCenter, [this, edge, sent] {
                out.bytesFromCenter += ServingWire::kHeaderBytes;
                const auto back = send(down, edge, loop.now(), ServingWire::kHeaderBytes);
                if (back && *back <= sent + setup.timeoutSeconds)
                    loop.at(*back, [this, edge] { view[std::size_t(edge)].suspect = false; });
            });
        loop.after(setup.probeSeconds, [this, edge] { probe(edge); });
    }

    void arrive(std::size_t i) {
        const InferenceRequest &r = requests[i];
        const auto img = std::size_t(r.image);
        ServedRequest &s = out.served[i];
        s.confidence = answers.confidence[img];
        if (setup.mode == ServingMode::CenterOnly) {
            if (view[std::size_t(r.edge)].suspect) {
                answerAtEdge(i, edgeCompute(r.edge, r.arrival), true);
                return;
            }
            forward(i, r.arrival, ServingWire::kHeaderBytes + ServingWire::kRawImageBytes,
                    setup.centerFullRequestSeconds + fullModelSecondsPerRequest(setup.centerGflops), true);
            return;
        }
        const double done = edgeCompute(r.edge, r.arrival);
        loop.at(done, [this, i, done] {
            const InferenceRequest &req = requests[i];
            if (answersAtEdge(out.served[i].confidence, setup.thresholdOf(req.edge))) {
                answerAtEdge(i, done, false);
            } else if (view[std::size_t(req.edge)].suspect) {
                answerAtEdge(i, done, true);
            } else {
                forward(i, done, ServingWire::kHeaderBytes + ServingWire::featureBytes(),
                        setup.centerRequestSeconds + centerSecondsPerRequest(setup.centerGflops), false);
            }
        });
    }
};

void checkSetup(const SplitPredictions &answers, const std::vector<InferenceRequest> &requests,
                const ServingSetup &setup) {
    const int edges = int(setup.edgeGflops.size());
    for (const auto &r : requests) {
        if (r.edge < 0 || r.edge >= edges)
            throw std::invalid_argument("serving: request " + std::to_string(r.id) + " is for edge " +
                                        std::to_string(r.edge) + " but the setup has " + std::to_string(edges) +
                                        " edges");
        if (r.image < 0 || r.image >= answers.size())
            throw std::invalid_argument("serving: request " + std::to_string(r.id) + " names image " +
                                        std::to_string(r.image) + " of " + std::to_string(answers.size()));
    }
    for (double g : setup.edgeGflops)
        if (!(g > 0))
            throw std::invalid_argument("serving: every edge needs gflops > 0");
    if (!(setup.centerGflops > 0) || !(setup.timeoutSeconds > 0) || !(setup.probeSeconds > 0))
        throw std::invalid_argument("serving: center gflops, the timeout and the probe interval must be > 0");
    for (double c : {setup.edgeRequestSeconds, setup.centerRequestSeconds, setup.centerFullRequestSeconds})
        if (!(c >= 0) || !std::isfinite(c))
            throw std::invalid_argument("serving: per-request costs must be finite and >= 0");
    for (double t : setup.trainStepSeconds)
        if (!(t >= 0) || !std::isfinite(t))
            throw std::invalid_argument("serving: training step times must be finite and >= 0");
}

} // namespace

ServingOutcome simulateServing(const SplitPredictions &answers, const std::vector<InferenceRequest> &requests,
                               const ServingSetup &setup) {
    checkSetup(answers, requests, setup);
    const auto edges = setup.edgeGflops.size();
    Run run{answers, requests, setup, {}, {}, {}, {}, std::vector<double>(edges, 0.0),
            std::vector<EdgeView>(edges), std::vector<bool>(requests.size(), false)};
    for (std::size_t e = 0; e < edges; ++e) {
        // Two seeds per edge, one per direction, so loss draws do not depend
        // on the traffic in the other direction.
        run.up.emplace_back(setup.edgeCenter, setup.seed * 1000003ull + std::uint64_t(2 * e));
        run.down.emplace_back(setup.edgeCenter, setup.seed * 1000003ull + std::uint64_t(2 * e + 1));
    }
    run.out.served.resize(requests.size());
    run.out.rawInputBytes = requests.size() * ServingWire::kRawImageBytes;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        run.out.served[i].id = requests[i].id;
        run.out.served[i].edge = requests[i].edge;
        run.out.served[i].arrival = requests[i].arrival;
        run.lastArrival = std::max(run.lastArrival, requests[i].arrival);
        run.loop.at(requests[i].arrival, [&run, i] { run.arrive(i); });
    }
    while (run.loop.step()) {
    }
    return std::move(run.out);
}

} // namespace synaptic::engine
