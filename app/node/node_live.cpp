// synaptic-node center / edge / cluster: the live driver's processes.
#include "node_live.h"

#include "child_process.h"
#include "revival_watch.h"
#include "node_exit.h"
#include "stop_signal.h"

#include "core/engine/json_number.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/train_report.h"
#include "core/rpc/live/center_process.h"
#include "core/rpc/live/edge_process.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <thread>
#include <unistd.h>

namespace synaptic::app {

namespace {

nlohmann::json summaryJson(const rpc::LiveRunSummary &s, const rpc::CenterOptions &o) {
    return {{"mode", "live"},
            {"config", o.configPath},
            {"strategy", s.strategy},
            {"steps_per_edge", o.stepsPerEdge},
            {"link_emulation", o.process.emulateLinks},
            {"finished", s.finished},
            {"final_accuracy", engine::finiteOrNull(s.finalAccuracy)},
            {"final_exit_accuracy", engine::finiteOrNull(s.finalExitAccuracy)},
            {"samples", s.samples},
            {"wall_seconds", s.wallSeconds},
            {"samples_per_second", s.wallSeconds > 0 ? double(s.samples) / s.wallSeconds : 0.0},
            {"wire_bytes", s.wireBytes},
            {"rejected_inputs", s.rejectedInputs},
            {"contributions_sent", s.contributionsSent},
            {"contributions_applied", s.contributionsApplied},
            {"contributions_rejected", s.contributionsRejected},
            {"contributions_rejected_by_reason", s.contributionsRejectedByReason},
            {"contributions_sent_by_edge", s.contributionsSentByEdge},
            {"contributions_rejected_by_edge", s.contributionsRejectedByEdge},
            {"contributions_duplicated", s.contributionsDuplicated}};
}

// The flags a live child process needs to join the same cluster the same way.
std::vector<std::string> processFlags(const rpc::ProcessOptions &p) {
    std::vector<std::string> a;
    const auto &s = p.security;
    a.insert(a.end(), {"--token-file", s.tokenFile});
    if (s.insecure)
        a.push_back("--insecure");
    if (!s.certFile.empty())
        a.insert(a.end(), {"--tls-cert", s.certFile});
    if (!s.keyFile.empty())
        a.insert(a.end(), {"--tls-key", s.keyFile});
    if (!s.caFile.empty())
        a.insert(a.end(), {"--tls-ca", s.caFile});
    if (!s.serverNameOverride.empty())
        a.insert(a.end(), {"--tls-server-name", s.serverNameOverride});
    if (s.mutualTls)
        a.push_back("--mtls");
    if (!p.emulateLinks)
        a.push_back("--no-link-emulation");
    a.insert(a.end(), {"--threads", std::to_string(p.threads > 0 ? p.threads : 1), "--device", p.device});
    if (!p.dataDir.empty())
        a.insert(a.end(), {"--data", p.dataDir});
    return a;
}

} // namespace

int runCenter(const NodeCommand &cmd) {
    installStopSignals();
    rpc::CenterProcess center(cmd.center);
    const std::string address = center.start();
    std::printf("center listening on %s\n", address.c_str());
    std::fflush(stdout);
    center.wait(stopRequested());
    const auto summary = center.summary();
    center.shutdown();
    if (!cmd.center.reportPath.empty()) {
        engine::writeFileAtomically(cmd.center.reportPath, summaryJson(summary, cmd.center).dump(2) + "\n");
        std::printf("report written to %s\n", cmd.center.reportPath.c_str());
    }
    if (summary.finished)
        std::printf("final_accuracy %.4f  samples %llu  wall %.1f s  wire %llu bytes\n", summary.finalAccuracy,
                    (unsigned long long)summary.samples, summary.wallSeconds, (unsigned long long)summary.wireBytes);
    return kExitOk;
}

int runEdge(const NodeCommand &cmd) {
    installStopSignals();
    rpc::EdgeProcess edge(cmd.edge);
    edge.start([&](const std::string &address) {
        std::printf("edge %s listening on %s\n", cmd.edge.name.c_str(), address.c_str());
        std::fflush(stdout);
    });
    if (edge.wait(stopRequested())) {
        // The kill command: gone at once, as kill -9 would leave it (no
        // leave, no flush): what the protocol must survive.
        std::fflush(stderr);
        _exit(kExitKilled);
    }
    if (stopRequested())
        edge.leave();
    edge.shutdown();
    return kExitOk;
}

int runCluster(const NodeCommand &cmd) {
    installStopSignals();
    const auto config = engine::loadClusterConfig(cmd.center.configPath);
    const std::string self = ChildProcess::selfPath();
    const auto flags = processFlags(cmd.center.process);

    std::vector<std::string> centerArgs{"center", "--listen", "127.0.0.1:0", "--config", cmd.center.configPath};
    if (cmd.center.stepsPerEdge > 0)
        centerArgs.insert(centerArgs.end(), {"--steps", std::to_string(cmd.center.stepsPerEdge)});
    centerArgs.insert(centerArgs.end(), {"--eval-every-samples", std::to_string(cmd.center.evalEverySamples)});
    centerArgs.insert(centerArgs.end(), {"--start-timeout", std::to_string(cmd.center.startTimeoutSeconds)});
    if (!cmd.center.reportPath.empty())
        centerArgs.insert(centerArgs.end(), {"--report", cmd.center.reportPath});
    if (cmd.center.exitWhenDone)
        centerArgs.push_back("--exit-when-done");
    centerArgs.insert(centerArgs.end(), flags.begin(), flags.end());

    ChildProcess center("center", self, centerArgs);
    const std::string address = center.waitForLine("center listening on ", 120);
    if (address.empty()) {
        std::fprintf(stderr, "synaptic-node cluster: the center did not start (see its messages above)\n");
        center.stop(5);
        return kExitFailure;
    }
    std::printf("center listening on %s\n", address.c_str());
    std::fflush(stdout);

    auto edgeArgs = [&](const std::string &name) {
        std::vector<std::string> a{"edge", "--center", address, "--name", name, "--listen", "127.0.0.1:0"};
        a.insert(a.end(), flags.begin(), flags.end());
        // Edges only: a live center keeps no state file and refuses the flag.
        if (!cmd.center.process.stateDir.empty())
            a.insert(a.end(), {"--state-dir", cmd.center.process.stateDir});
        return a;
    };
    std::map<std::string, std::unique_ptr<ChildProcess>> edges;
    for (const auto &region : config.regions)
        for (const auto &e : region.edges)
            edges[e.name] = std::make_unique<ChildProcess>(e.name, self, edgeArgs(e.name));
    for (auto &[name, child] : edges) {
        const std::string where = child->waitForLine("edge " + name + " listening on ", 120);
        std::printf("edge %s listening on %s (pid %d)\n", name.c_str(), where.empty() ? "?" : where.c_str(),
                    int(child->pid()));
    }
    std::fflush(stdout);

    // Until Ctrl+C / SIGTERM, or the center ends the run. An edge that the
    // control plane kills is restarted when it asks for a revive
    // (RevivalWatch); one that exits by itself stays down.
    RevivalWatch revivals(address, cmd.center.process.security);
    while (!stopRequested() && center.running()) {
        for (const auto &name : revivals.take()) {
            auto &child = edges[name];
            if (child && !child->running()) {
                child = std::make_unique<ChildProcess>(name, self, edgeArgs(name));
                std::printf("edge %s restarted (pid %d)\n", name.c_str(), int(child->pid()));
                std::fflush(stdout);
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    revivals.stop();
    // Edges first, so they can hand their shards over while the center still
    // listens; then the center; anything left after its grace time is killed.
    for (auto &[name, child] : edges)
        child->terminate();
    for (auto &[name, child] : edges)
        child->stop(15);
    const int centerStatus = center.stop(10);
    std::printf("cluster stopped\n");
    return centerStatus == 0 ? kExitOk : kExitFailure;
}

} // namespace synaptic::app
