#include "sim_runner.h"

#include "cluster_config.h"
#include "sim_command.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/compute_threads.h"
#include "core/engine/device.h"
#include "core/engine/json_number.h"
#include "core/engine/tasks/task_registry.h"
#include "core/engine/tensor_data.h"
#include "core/engine/trainer.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace synaptic::engine {

using nlohmann::json;

namespace {

std::string readText(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ConfigError(path, "cannot open file");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

void checkSimRequest(const SimRunRequest &request) {
    const ClusterConfig config = loadClusterConfig(request.configPath);
    if (!request.commandsPath.empty())
        parseCommands(readText(request.commandsPath), request.commandsPath, config);
}

SimData loadSimData(const ClusterConfig &config, const std::string &device) {
    return TaskRegistry::builtIn().find(config.task).loadData(config.dataDir, device);
}

std::vector<StrategyResult> runStrategies(const SimRunRequest &request,
                                          const std::function<void(const StrategyResult &)> &onResult,
                                          const SimRunHooks &hooks) {
    ClusterConfig config = loadClusterConfig(request.configPath);
    if (!request.task.empty() && request.task != config.task) {
        // The config's data folder is its own task's (IDX files or fortunes):
        // another task looks in its default place unless --data says where.
        config.task = request.task;
        config.dataDir.clear();
    }
    if (request.seed)
        config.seed = *request.seed;
    if (!request.dataDir.empty())
        config.dataDir = request.dataDir;
    if (request.editConfig)
        request.editConfig(config);
    std::vector<SimCommand> commands;
    if (!request.commandsPath.empty())
        commands = parseCommands(readText(request.commandsPath), request.commandsPath, config);

    setComputeThreads(resolveThreadCount(request.threads));
    const std::string device = resolveDevice(request.device);
    const SimData data = loadSimData(config, device);

    std::vector<std::string> strategies = request.strategies;
    if (strategies.empty())
        strategies.push_back(config.strategy);
    std::vector<StrategyResult> results;
    for (const auto &name : strategies) {
        ClusterConfig c = config;
        c.strategy = name;
        SimOptions o;
        o.device = device;
        o.stepsPerEdge = request.stepsPerEdge;
        o.virtualSeconds = request.virtualSeconds;
        o.targetAccuracy = request.targetAccuracy;
        o.evalEverySamples = request.evalEverySamples;
        o.evaluateRegions = request.evaluateRegions;
        o.commands = commands;
        o.saveModelPath = request.modelPath;
        if (hooks.prepare)
            hooks.prepare(c, o);
        Simulation sim(c, data.train, data.trainLabels, data.test, o);
        // Declared after `sim`, so it runs before `sim` is destroyed, also
        // when run() throws.
        struct Leaving {
            const SimRunHooks &hooks;
            ~Leaving() {
                if (hooks.leaving)
                    hooks.leaving();
            }
        } leaving{hooks};
        if (hooks.started)
            hooks.started(c, o, sim);
        results.push_back(sim.run());
        if (hooks.finished)
            hooks.finished(results.back());
        if (onResult)
            onResult(results.back());
    }
    return results;
}

namespace {

json strategyEntry(const StrategyResult &r) {
        json curve = json::array();
        for (const auto &p : r.curve)
            curve.push_back({{"virtual_seconds", p.virtualSeconds}, {"samples", p.samples},
                             {"accuracy", p.accuracy}, {"exit_accuracy", finiteOrNull(p.exitAccuracy)},
                             {"loss", finiteOrNull(p.loss)}, {"bytes_to_center", p.bytesToCenter},
                             {"wan_bytes", p.wanBytes}, {"total_bytes", p.totalBytes}});
        json wanByKind = json::object();
        for (const auto &[kind, t] : r.wanByKind)
            wanByKind[kind] = {{"messages", t.messages}, {"bytes", t.bytes}, {"tensor_bytes", t.tensorBytes},
                               {"tensor_elements", t.tensorElements},
                               {"batch_norm_bytes", t.batchNormBytes}};
        return {
            {"strategy", r.strategy},
            {"task", r.task},
            {"device", r.device},
            {"final_accuracy", r.finalAccuracy},
            {"final_exit_accuracy", finiteOrNull(r.finalExitAccuracy)}, // null: no early exit (langid)
            {"time_to_target_s", nullable(r.timeToTargetSeconds)},
            {"bytes_to_center", r.bytesToCenter},
            {"wan_bytes", r.wanBytes},
            {"wan_by_kind", wanByKind},
            {"total_bytes", r.totalBytes},
            {"serving_bytes", r.servingBytes},
            {"messages", r.messages},
            {"messages_lost", r.messagesLost},
            {"messages_dropped", r.messagesDropped},
            {"bytes_lost", r.bytesLost},
            {"messages_duplicated", r.messagesDuplicated},
            {"samples", r.samples},
            {"virtual_seconds", r.virtualSeconds},
            {"wall_seconds", r.wallSeconds},
            {"train_wall_seconds", r.trainWallSeconds},
            {"eval_wall_seconds", r.evalWallSeconds},
            {"wall_seconds_per_sample", r.samples ? r.trainWallSeconds / double(r.samples) : 0.0},
            {"events", r.events},
            {"event_hash", r.eventHash},
            {"contributions", {{"sent", r.contributionsSent}, {"applied", r.contributionsApplied},
                               {"rejected", r.contributionsRejected},
                               {"rejected_by_reason", r.contributionsRejectedByReason},
                               {"rejected_by_edge", r.contributionsRejectedByEdge},
                               {"sent_by_edge", r.contributionsSentByEdge},
                               {"duplicated", r.contributionsDuplicated},
                               {"forwarded", r.contributionsForwarded},
                               {"applied_under_expired_lease", r.contributionsUnderExpiredLease},
                               {"lost_in_crash", r.contributionsLostInCrash},
                               {"rolled_back", r.contributionsRolledBack}}},
            {"merges_lost_in_crash", r.mergesLostInCrash},
            {"durable_state_writes", r.durableStateWrites},
            {"center_deltas_resent", {{"count", r.centerDeltasResent}, {"already_merged", r.centerResentAlreadyMerged}}},
            {"gradients_sent_while_read_only", r.gradientsSentWhileReadOnly},
            {"max_region_drift", r.maxRegionDrift},
            {"mean_region_drift", r.meanRegionDrift},
            {"notes", r.notes},
            {"config", r.startConfigJson.empty() ? json(nullptr) : json::parse(r.startConfigJson)},
            {"stopped_early", r.stoppedEarly.empty() ? json(nullptr) : json(r.stoppedEarly)},
            {"curve", curve},
        };
}

json reportJson(const SimRunRequest &request, json strategies, int threads, int blasThreads) {
    json report = {
        {"config", request.configPath},
        {"seed", request.seed ? json(*request.seed) : json(nullptr)},
        {"steps_per_edge", request.stepsPerEdge},
        {"virtual_seconds_budget", request.virtualSeconds},
        {"target_accuracy", request.targetAccuracy},
        {"eval_every_samples", request.evalEverySamples},
        {"device_requested", request.device},
        {"threads", threads},
        {"blas_threads", blasThreads}, // the bits follow it too (compute_threads.h)
        {"strategies", std::move(strategies)},
    };
    return report.dump(1) + "\n";
}

} // namespace

std::string strategyResultJson(const StrategyResult &result) { return strategyEntry(result).dump(); }

std::string simReportJson(const SimRunRequest &request, const std::vector<StrategyResult> &results) {
    json strategies = json::array();
    for (const auto &r : results)
        strategies.push_back(strategyEntry(r));
    return reportJson(request, std::move(strategies), at::get_num_threads(), blasThreads());
}

std::string simReportJson(const SimRunRequest &request, const std::vector<std::string> &strategyEntries,
                          int threads, int blasThreads) {
    json strategies = json::array();
    for (const auto &e : strategyEntries)
        strategies.push_back(json::parse(e));
    return reportJson(request, std::move(strategies), threads, blasThreads);
}

std::string simResultTable(const std::vector<StrategyResult> &results, const std::string &baseline) {
    const StrategyResult *base = nullptr;
    for (const auto &r : results)
        if (r.strategy == baseline)
            base = &r;
    auto mb = [](std::uint64_t b) { return double(b) / 1e6; };
    std::ostringstream out;
    char line[512];
    std::snprintf(line, sizeof line, "%-13s %8s %12s %12s %12s %12s %10s %9s %9s\n", "strategy", "accuracy",
                  "to target s", "center MB", "WAN MB", "total MB", "samples", "virtual s", "wall s");
    out << line;
    for (const auto &r : results) {
        char target[32] = "never";
        if (r.timeToTargetSeconds)
            std::snprintf(target, sizeof target, "%.2f", *r.timeToTargetSeconds);
        std::snprintf(line, sizeof line, "%-13s %8.4f %12s %12.2f %12.2f %12.2f %10llu %9.2f %9.1f\n",
                      r.strategy.c_str(), r.finalAccuracy, target, mb(r.bytesToCenter), mb(r.wanBytes),
                      mb(r.totalBytes), (unsigned long long)r.samples, r.virtualSeconds, r.wallSeconds);
        out << line;
    }
    if (base) {
        out << "ratios against " << baseline << " (baseline / strategy; accuracy as a difference):\n";
        for (const auto &r : results) {
            if (&r == base)
                continue;
            auto ratio = [](double b, double s) { return s > 0 ? b / s : INFINITY; };
            char tt[32] = "n/a";
            if (r.timeToTargetSeconds && base->timeToTargetSeconds)
                std::snprintf(tt, sizeof tt, "%.2fx", *base->timeToTargetSeconds / *r.timeToTargetSeconds);
            std::snprintf(line, sizeof line,
                          "  %-13s center bytes %8.1fx fewer  WAN bytes %8.1fx fewer  time to target %s shorter  "
                          "accuracy %+.2f pp\n",
                          r.strategy.c_str(), ratio(double(base->bytesToCenter), double(r.bytesToCenter)),
                          ratio(double(base->wanBytes), double(r.wanBytes)), tt,
                          100 * (r.finalAccuracy - base->finalAccuracy));
            out << line;
        }
    }
    return out.str();
}

} // namespace synaptic::engine
