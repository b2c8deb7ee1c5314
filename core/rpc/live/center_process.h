#pragma once

#include "live_options.h"

#include "core/engine/sim/sim_command.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace synaptic::rpc {

// What a live run produced, for the center's report and bench/live.
struct LiveRunSummary {
    std::string strategy;
    double finalAccuracy = 0;       // whole test set, the center's model at the end (NaN if never evaluated)
    double finalExitAccuracy = 0;
    std::uint64_t samples = 0;
    double wallSeconds = 0;         // from the first edge's join until every edge had finished
    std::uint64_t wireBytes = 0;    // node messages every transport sent, framing included
    std::uint64_t rejectedInputs = 0;
    std::uint64_t contributionsSent = 0;
    std::uint64_t contributionsApplied = 0;
    std::uint64_t contributionsRejected = 0;
    std::map<std::string, std::uint64_t> contributionsRejectedByReason; // "stale_epoch", "too_stale", ...
    std::map<std::string, std::uint64_t> contributionsSentByEdge;       // by edge name
    std::map<std::string, std::uint64_t> contributionsRejectedByEdge;   // the sender's name
    std::uint64_t contributionsDuplicated = 0;
    bool finished = false;          // every edge used its budget
};

// `synaptic-node center` (issue 13 §3): the center node of the config's
// strategy in real time, plus the cluster's driver: edges join through it
// (and get their region, data partition, peers and the model to start
// from), report to it, and watch it for peers and commands; the control
// plane drives the cluster through it. Built on the calling thread;
// start() serves; everything after that runs on gRPC's, the node's, the
// transport's and the evaluator's threads.
class CenterProcess {
public:
    explicit CenterProcess(CenterOptions options);
    ~CenterProcess();

    // Binds and starts serving; returns "host:port".
    std::string start();
    // Blocks until `stop` is set, or the run finished and exitWhenDone.
    void wait(const std::atomic<bool> &stop);
    void shutdown();

    LiveRunSummary summary() const;
    // A command as the control plane would submit it (tests, tools).
    std::string submit(const engine::SimCommand &command);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace synaptic::rpc
