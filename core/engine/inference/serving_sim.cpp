#include "serving_sim.h"

#include "core/engine/sim/event_loop.h"

#include <cmath>
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

bool ServingSetup::reachable(int edge) const {
    if (!edgeCenter.up)
        return false;
    return edge < 0 || std::size_t(edge) >= centerReachable.size() || centerReachable[std::size_t(edge)];
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

namespace {

// The state of one run; lives on the stack of simulateServing.
struct Run {
    const SplitPredictions &answers;
    const std::vector<InferenceRequest> &requests;
    const ServingSetup &setup;
    ServingOutcome out;
    EventLoop loop;
    std::vector<Link> up, down;
    std::vector<double> edgeFree;
    double centerFree = 0;

    void answerAtEdge(std::size_t i, double at, bool degraded) {
        ServedRequest &s = out.served[i];
        const std::int64_t img = requests[i].image;
        s.atEdge = true;
        s.degraded = degraded;
        s.correct = answers.exitClass[std::size_t(img)] == answers.label[std::size_t(img)];
        s.latency = at - s.arrival;
    }

    double edgeCompute(int edge, double readyAt) {
        const double start = std::max(readyAt, edgeFree[std::size_t(edge)]);
        edgeFree[std::size_t(edge)] = start + edgeSecondsPerRequest(setup.edgeGflops[std::size_t(edge)]);
        return edgeFree[std::size_t(edge)];
    }

    // The edge sends `bytes` for request i at `sentAt`; the center computes
    // for `centerSeconds` and replies. Falls back to the edge's own answer
    // at the timeout when a message is lost or comes back too late.
    void forward(std::size_t i, double sentAt, std::uint64_t bytes, double centerSeconds, bool fullModel) {
        const int edge = requests[i].edge;
        const double deadline = sentAt + setup.timeoutSeconds;
        out.bytesToCenter += bytes;
        const auto atCenter = up[std::size_t(edge)].send(sentAt, bytes);
        if (!atCenter) {
            ++out.lostMessages;
            fallBack(i, deadline, fullModel);
            return;
        }
        loop.at(*atCenter, [this, i, edge, deadline, centerSeconds, fullModel] {
            const double start = std::max(loop.now(), centerFree);
            centerFree = start + centerSeconds;
            out.bytesFromCenter += ServingWire::kReplyBytes;
            const auto back = down[std::size_t(edge)].send(centerFree, ServingWire::kReplyBytes);
            if (!back || *back > deadline) {
                if (!back)
                    ++out.lostMessages;
                fallBack(i, deadline, fullModel);
                return;
            }
            ServedRequest &s = out.served[i];
            const std::int64_t img = requests[i].image;
            const auto &classes = fullModel ? answers.fullClass : answers.centerClass;
            s.correct = classes[std::size_t(img)] == answers.label[std::size_t(img)];
            s.latency = *back - s.arrival;
        });
    }

    // The center did not answer in time: the edge answers with its exit head
    // (already computed in edge-exit mode; computed now in center-only mode).
    void fallBack(std::size_t i, double deadline, bool centerOnly) {
        const double at = centerOnly ? deadline + edgeSecondsPerRequest(setup.edgeGflops[std::size_t(requests[i].edge)])
                                     : deadline;
        answerAtEdge(i, at, true);
    }

    void arrive(std::size_t i) {
        const InferenceRequest &r = requests[i];
        const auto img = std::size_t(r.image);
        ServedRequest &s = out.served[i];
        s.confidence = answers.confidence[img];
        if (setup.mode == ServingMode::CenterOnly) {
            if (!setup.reachable(r.edge)) {
                answerAtEdge(i, edgeCompute(r.edge, r.arrival), true);
                return;
            }
            forward(i, r.arrival, ServingWire::kHeaderBytes + ServingWire::kRawImageBytes,
                    fullModelSecondsPerRequest(setup.centerGflops), true);
            return;
        }
        const double done = edgeCompute(r.edge, r.arrival);
        loop.at(done, [this, i, done] {
            const InferenceRequest &req = requests[i];
            if (answersAtEdge(out.served[i].confidence, setup.thresholdOf(req.edge))) {
                answerAtEdge(i, done, false);
            } else if (!setup.reachable(req.edge)) {
                answerAtEdge(i, done, true);
            } else {
                forward(i, done, ServingWire::kHeaderBytes + ServingWire::featureBytes(),
                        centerSecondsPerRequest(setup.centerGflops), false);
            }
        });
    }
};

} // namespace

ServingOutcome simulateServing(const SplitPredictions &answers, const std::vector<InferenceRequest> &requests,
                               const ServingSetup &setup) {
    int edges = int(setup.edgeGflops.size());
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
    if (!(setup.centerGflops > 0) || !(setup.timeoutSeconds > 0))
        throw std::invalid_argument("serving: center gflops and the timeout must be > 0");

    Run run{answers, requests, setup, {}, {}, {}, {}, std::vector<double>(std::size_t(edges), 0.0)};
    for (int e = 0; e < edges; ++e) {
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
        run.loop.at(requests[i].arrival, [&run, i] { run.arrive(i); });
    }
    while (run.loop.step()) {
    }
    return std::move(run.out);
}

} // namespace synaptic::engine
