// synaptic-node: the headless engine CLI. Qt-free so it builds with
// SYNAPTIC_ENGINE_ONLY=ON on GPU servers and edge boxes.
#include "node_cli.h"
#include "node_exit.h"
#ifdef SYNAPTIC_WITH_SESSION
#include "node_session.h"
#endif
#ifdef SYNAPTIC_WITH_RPC
#include "node_live.h"
#endif

#include "core/data/data_error.h"
#include "core/engine/allocator.h"
#include "core/engine/console_progress.h"
#include "core/engine/device.h"
#include "core/engine/embeddings/hot_update_report.h"
#include "core/engine/embeddings/langid_scenario.h"
#include "core/engine/inference/serve_runner.h"
#include "core/engine/sim/sim_progress.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/train_report.h"
#include "core/engine/trainer.h"
#include "synaptic_version.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

using namespace synaptic;

namespace {

using app::kExitDamaged;
using app::kExitFailure;
using app::kExitOk;
using app::kExitUsage;

void printVersion() {
    std::printf("synaptic-node %s\n", SYNAPTIC_VERSION);
    std::printf("LibTorch %s (CUDA %s)\n", SYNAPTIC_TORCH_VERSION,
                engine::cudaAvailable() ? "available" : "not available");
    std::printf("build: %s, %s, C++20, SYNAPTIC_ENGINE_ONLY=%s\n", SYNAPTIC_BUILD_TYPE, SYNAPTIC_COMPILER,
                SYNAPTIC_ENGINE_ONLY_BUILD);
#ifdef SYNAPTIC_WITH_SESSION
    std::printf("this binary: engine CLI with session recordings (protobuf, zstd) and live clusters (gRPC); "
                "no Qt\n");
#else
    std::printf("this binary: engine-only CLI, no Qt, no protobuf, no gRPC (no session recordings)\n");
#endif
}

int runTrain(const app::NodeCommand &cmd) {
    engine::Trainer trainer(cmd.train);
    engine::ConsoleProgress progress(stderr, app::progressStyle(cmd));
    const engine::TrainReport report = trainer.run(std::ref(progress));
    std::printf("test_accuracy %.4f  exit_test_accuracy %.4f  epochs %d  %.0f samples/s  %.1f s wall  device %s  "
                "threads %d\n",
                report.testAccuracy, report.exitTestAccuracy, report.epochs, report.samplesPerSecond,
                report.wallSeconds, report.device.c_str(), report.threads);
    if (!cmd.reportPath.empty()) {
        engine::writeFileAtomically(cmd.reportPath, engine::toJson(report));
        std::printf("report written to %s\n", cmd.reportPath.c_str());
    }
    return kExitOk;
}

int runServe(const app::NodeCommand &cmd) {
    if (!cmd.quiet)
        std::fprintf(stderr, "serve: %s\n",
                     cmd.serve.modelPath.empty() ? "training a model first (--model FILE skips this)"
                                                 : ("loading " + cmd.serve.modelPath).c_str());
    // Training the model is most of a serve run's time: its progress as
    // `train` shows it, then one line per stage after it.
    engine::ConsoleProgress training(stderr, app::progressStyle(cmd), "serve: train");
    engine::ServeRequest request = cmd.serve;
    request.onTrainProgress = std::ref(training);
    if (!cmd.quiet)
        request.onStage = [](const std::string &stage) { std::fprintf(stderr, "serve: %s\n", stage.c_str()); };
    const engine::ServeResult result = engine::runServe(request);
    std::printf("model: %s; full model %.4f, exit head %.4f on the test set\n", result.modelSource.c_str(),
                result.modelTestAccuracy, result.modelExitAccuracy);
    std::printf("%llu requests over %g virtual s at %g per edge per s, %zu edges, threshold %.2f (%s), "
                "edge<->center %.0f ms one way\n",
                (unsigned long long)result.requests, cmd.serve.virtualSeconds, cmd.serve.ratePerEdge,
                result.edgeNames.size(), result.setup.threshold, result.confidence.c_str(),
                result.setup.edgeCenter.latencySeconds * 1000);
    std::printf("%s\nthreshold sweep on test images [0, %lld):\n%s", engine::serveTable(result).c_str(),
                (long long)cmd.serve.validationImages,
                engine::sweepTable(result.sweep, result.setup.threshold).c_str());
    if (!cmd.reportPath.empty()) {
        engine::writeFileAtomically(cmd.reportPath, engine::serveReportJson(cmd.serve, result));
        std::printf("report written to %s\n", cmd.reportPath.c_str());
    }
    return kExitOk;
}

#ifndef SYNAPTIC_WITH_SESSION
int withoutSessions(const char *what) {
    std::fprintf(stderr, "synaptic-node: error: %s needs session recordings, which this build leaves out "
                         "(built with SYNAPTIC_ENGINE_ONLY=ON)\n", what);
    return kExitUsage;
}
#endif

} // namespace

// sim --task langid without --strategy/--compare: the hot-update scenario.
static int runLangIdSim(const app::NodeCommand &cmd) {
    engine::ProgressMeter meter(stderr, "sim langid", app::progressStyle(cmd));
    const auto r = engine::runLangIdScenario(cmd.sim, [&](const engine::HotUpdateProgress &p) {
        char text[120];
        std::snprintf(text, sizeof text, "%.2f / %.1f virtual s, %llu steps", p.virtualTime, p.duration,
                      (unsigned long long)p.steps);
        meter.update(p.duration > 0 ? p.virtualTime / p.duration : -1, text);
    });
    meter.finish();
    std::printf("langid, %s: %zu regions, %d edges, center sync every %.2f s\n%s",
                r.hotUpdates ? "hot updates" : "center sync only", r.regions.size(), r.edges, r.centerSyncPeriod,
                engine::hotUpdateSummary(r.hotUpdates ? "hot updates" : "center sync only", r).c_str());
    if (!cmd.reportPath.empty()) {
        engine::writeFileAtomically(cmd.reportPath, engine::hotUpdateJson(r).dump(2) + "\n");
        std::printf("report written to %s\n", cmd.reportPath.c_str());
    }
    return r.lagViolations == 0 ? kExitOk : app::kExitDamaged; // the lag audit caught rows past the bound
}

int app::runSim(const app::NodeCommand &cmd, const engine::SimRunHooks &hooks) {
    if (cmd.sim.hotUpdateScenario)
        return runLangIdSim(cmd);
    engine::ProgressMeter meter(stderr, "sim", app::progressStyle(cmd));
    meter.update(-1, "loading the config and data");
    engine::SimProgress progress(meter);
    progress.setStrategyCount(std::max<std::size_t>(1, cmd.sim.strategies.size()));
    const auto results = engine::runStrategies(cmd.sim, [&](const engine::StrategyResult &r) {
        char text[256];
        std::snprintf(text, sizeof text, "%s: accuracy %.4f, %llu samples, %.2f virtual s, %.1f s wall (%.1f s evaluating)",
                      r.strategy.c_str(), r.finalAccuracy, (unsigned long long)r.samples, r.virtualSeconds,
                      r.wallSeconds, r.evalWallSeconds);
        meter.line(text);
        for (const auto &note : r.notes)
            meter.line("  note: " + note);
        if (!r.stoppedEarly.empty())
            meter.line("  " + r.stoppedEarly);
    }, progress.wrap(hooks));
    std::printf("%s", engine::simResultTable(results).c_str());
    if (!cmd.reportPath.empty()) {
        engine::writeFileAtomically(cmd.reportPath, engine::simReportJson(cmd.sim, results));
        std::printf("report written to %s\n", cmd.reportPath.c_str());
    }
    return kExitOk;
}

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    app::NodeCommand cmd;
    try {
        cmd = app::parseNodeCommand(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const engine::ConfigError &e) {
        std::fprintf(stderr, "synaptic-node: error: %s\n\n%s", e.what(), app::nodeUsage().c_str());
        return kExitUsage;
    }
    try {
        switch (cmd.kind) {
        case app::NodeCommand::Kind::Version:
            printVersion();
            return kExitOk;
        case app::NodeCommand::Kind::Help:
            std::printf("%s", app::nodeUsage().c_str());
            return kExitOk;
        case app::NodeCommand::Kind::Train:
            return runTrain(cmd);
        case app::NodeCommand::Kind::Serve:
            return runServe(cmd);
#ifdef SYNAPTIC_WITH_SESSION
        case app::NodeCommand::Kind::Sim:
            return cmd.recordPath.empty() ? app::runSim(cmd) : app::runSimRecorded(cmd);
        case app::NodeCommand::Kind::Info:
            return app::runInfo(cmd);
        case app::NodeCommand::Kind::Export:
            return app::runExport(cmd);
        case app::NodeCommand::Kind::Rerun:
            return app::runRerun(cmd);
        case app::NodeCommand::Kind::Check:
            return app::runCheck(cmd);
#else
        case app::NodeCommand::Kind::Sim:
            return cmd.recordPath.empty() ? app::runSim(cmd) : withoutSessions("sim --record");
        case app::NodeCommand::Kind::Info:
            return withoutSessions("info");
        case app::NodeCommand::Kind::Export:
            return withoutSessions("export");
        case app::NodeCommand::Kind::Rerun:
            return withoutSessions("rerun");
        case app::NodeCommand::Kind::Check:
            return withoutSessions("check");
#endif
#ifdef SYNAPTIC_WITH_RPC
        case app::NodeCommand::Kind::Center:
            return app::runCenter(cmd);
        case app::NodeCommand::Kind::Edge:
            return app::runEdge(cmd);
        case app::NodeCommand::Kind::Cluster:
            return app::runCluster(cmd);
#else
        case app::NodeCommand::Kind::Center:
        case app::NodeCommand::Kind::Edge:
        case app::NodeCommand::Kind::Cluster:
            std::fprintf(stderr, "synaptic-node: error: live clusters need gRPC, which this build leaves out "
                                 "(built with SYNAPTIC_ENGINE_ONLY=ON)\n");
            return kExitUsage;
#endif
        }
    } catch (const data::DataError &e) {
        std::fprintf(stderr, "synaptic-node: data error: %s\n", e.what());
    } catch (const engine::ConfigError &e) {
        std::fprintf(stderr, "synaptic-node: error: %s\n", e.what());
        return kExitUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "synaptic-node: error: %s\n", e.what());
    }
    return kExitFailure;
}
