// bench/inference: early-exit serving against center-only serving of the
// same trained model and the same Poisson request stream (issue 6), on the
// serving model of issue 14 §6: a measured fixed cost per request, edges
// that train while they serve (one compute queue), reachability learned
// from timeouts and probes. At threshold 0.85 and 40 ms one-way
// edge<->center latency it reports mean, p95 and p99 latency and the edge
// share at the default rate and over a range of rates, the load each mode
// carries before its p99 passes 200 ms, the goals checked in the same run
// (non-zero exit when one is missed), and the threshold sweep.
//
//   build/dev/bench/synaptic-bench-inference [--config FILE] [--model FILE]
//       [--epochs N] [--threshold X] [--rate R] [--virtual-seconds S]
//       [--scan-seconds S] [--latency-ms MS] [--confidence max_softmax|entropy]
//       [--seed N] [--threads N] [--save-model FILE] [--json FILE] [--quiet]
//
// Progress goes to stderr (training the model, each serving stage, each
// capacity scan; --quiet: none), the figures to stdout.
#include "bench_progress.h"

#include "core/engine/allocator.h"
#include "core/engine/compute_threads.h"
#include "core/engine/inference/load_scan.h"
#include "core/engine/inference/serve_runner.h"
#include "core/engine/train_report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>

using namespace synaptic;
using nlohmann::json;

namespace {

constexpr double kP99LimitMs = 200;

struct Options {
    engine::ServeRequest serve;
    double scanSeconds = 20;
    std::string json;
    std::string commandLine;
    bool quiet = false; // no progress on stderr
};

bool parse(int argc, char **argv, Options &o) {
    auto &s = o.serve;
    s.configPath = SYNAPTIC_DEFAULT_CONFIG;
    s.threshold = 0.85;
    s.linkLatencyMs = 40;
    s.trainEpochs = 5;
    s.ratePerEdge = 20;
    s.virtualSeconds = 60;
    s.measureForwardCosts = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quiet") {
            o.quiet = true;
            continue;
        }
        if (a == "--help" || a == "-h" || i + 1 >= argc) {
            std::fprintf(stderr, "usage: synaptic-bench-inference [--config FILE] [--model FILE] [--epochs N] "
                                 "[--threshold X] [--rate R] [--virtual-seconds S] [--scan-seconds S] "
                                 "[--latency-ms MS] [--confidence max_softmax|entropy] [--seed N] [--threads N] "
                                 "[--save-model FILE] [--json FILE] [--quiet]\n");
            return false;
        }
        const std::string v = argv[++i];
        try {
            if (a == "--config") s.configPath = v;
            else if (a == "--model") s.modelPath = v;
            else if (a == "--save-model") s.saveModelPath = v;
            else if (a == "--epochs") s.trainEpochs = std::stoi(v);
            else if (a == "--threshold") s.threshold = std::stod(v);
            else if (a == "--rate") s.ratePerEdge = std::stod(v);
            else if (a == "--virtual-seconds") s.virtualSeconds = std::stod(v);
            else if (a == "--scan-seconds") o.scanSeconds = std::stod(v);
            else if (a == "--latency-ms") s.linkLatencyMs = std::stod(v);
            else if (a == "--confidence") s.confidence = v;
            else if (a == "--seed") s.seed = std::stoull(v);
            else if (a == "--threads") s.threads = std::stoi(v);
            else if (a == "--json") o.json = v;
            else {
                std::fprintf(stderr, "inference: unknown option %s\n", a.c_str());
                return false;
            }
        } catch (const std::exception &) {
            std::fprintf(stderr, "inference: %s expects a number, got '%s'\n", a.c_str(), v.c_str());
            return false;
        }
    }
    if (!(o.scanSeconds > 0) || !std::isfinite(o.scanSeconds)) {
        std::fprintf(stderr, "inference: --scan-seconds must be > 0\n");
        return false;
    }
    o.commandLine = engine::blasEnvironmentPrefix() + argv[0]; // the bits follow OpenBLAS's pool
    if (s.configPath != SYNAPTIC_DEFAULT_CONFIG)
        o.commandLine += " --config " + s.configPath;
    if (!s.modelPath.empty())
        o.commandLine += " --model " + s.modelPath;
    else
        o.commandLine += " --epochs " + std::to_string(s.trainEpochs);
    char buf[256];
    std::snprintf(buf, sizeof buf, " --threshold %g --rate %g --virtual-seconds %g --scan-seconds %g --latency-ms %g",
                  *s.threshold, s.ratePerEdge, s.virtualSeconds, o.scanSeconds, *s.linkLatencyMs);
    o.commandLine += buf;
    if (!s.confidence.empty())
        o.commandLine += " --confidence " + s.confidence;
    if (s.seed)
        o.commandLine += " --seed " + std::to_string(*s.seed);
    if (!o.json.empty())
        o.commandLine += " --json " + o.json;
    return true;
}

struct Goal {
    std::string name;
    double value;
    std::string bound;
    bool met;
};

const char *modeName(engine::ServingMode m) { return m == engine::ServingMode::EdgeExit ? "edge_exit" : "center_only"; }

// Every rate either capacity scan served, in both modes (the same rate and
// seed give the same stream, so a point served once is not served again).
std::vector<engine::LoadPoint> rateTable(const engine::LoadScan &scan, const engine::Capacity &edge,
                                         const engine::Capacity &center) {
    std::map<std::pair<double, int>, engine::LoadPoint> points;
    for (const auto *c : {&edge, &center})
        for (const auto &p : c->points)
            points.emplace(std::pair{p.rate, int(p.mode)}, p);
    std::vector<double> rates;
    for (const auto &[key, p] : points)
        rates.push_back(key.first);
    for (double rate : rates)
        for (auto mode : {engine::ServingMode::EdgeExit, engine::ServingMode::CenterOnly})
            if (!points.count({rate, int(mode)}))
                points.emplace(std::pair{rate, int(mode)}, engine::serveAtRate(scan, rate, mode));
    std::vector<engine::LoadPoint> out;
    for (const auto &[key, p] : points)
        out.push_back(p);
    return out;
}

std::string capacityText(const engine::Capacity &c) {
    char buf[96];
    if (c.found)
        std::snprintf(buf, sizeof buf, "%.1f per s per edge", c.rate);
    else if (c.rate > 0)
        std::snprintf(buf, sizeof buf, "above %.0f per s per edge (never passed)", c.rate);
    else
        std::snprintf(buf, sizeof buf, "below the first rate tried");
    return buf;
}

} // namespace

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    Options o;
    if (!parse(argc, argv, o))
        return 2;
    // Runs: training (or loading) the model and serving with it, the two
    // capacity scans, the rest of the rate table.
    bench::BenchProgress progress("inference", o.quiet, 4);
    try {
        engine::checkServeRequest(o.serve);
        std::printf("synaptic-bench-inference: %s, %u hardware threads\n", o.serve.configPath.c_str(),
                    std::thread::hardware_concurrency());
        std::fflush(stdout);
        // Training is most of the first run: 70 % of it on the bar, the stages after it the rest.
        engine::ServeRequest request = o.serve;
        double within = 0;
        int stages = 0;
        request.onTrainProgress = [&](const engine::TrainProgress &p) {
            if (p.kind != engine::TrainProgress::Kind::Step || p.totalSteps <= 0)
                return;
            within = 0.7 * double(p.step) / double(p.totalSteps);
            char text[120];
            std::snprintf(text, sizeof text, "training the model: epoch %d/%d, step %lld/%lld, loss %.4f", p.epoch,
                          p.epochs, p.step, p.totalSteps, p.loss);
            progress.update(within, text);
        };
        request.onStage = [&](const std::string &stage) {
            if (++stages > 1) // the first, loading the test set, comes before training
                within = std::max(within, std::min(0.95, 0.7 + 0.06 * (stages - 1)));
            progress.update(within, stage);
        };
        progress.next(o.serve.modelPath.empty() ? "training a model, serving with it" : "serving with " + o.serve.modelPath);
        const engine::ServeResult r = engine::runServe(request);
        progress.clear();
        const auto &e = r.edgeExit;
        const auto &c = *r.centerOnly;
        const auto &f = *r.forwardCosts;
        std::printf("model: %s; full model %.4f, exit head %.4f on all 10,000 test images\n", r.modelSource.c_str(),
                    r.modelTestAccuracy, r.modelExitAccuracy);
        std::printf("measured here, one image, 1 thread, median of %d forwards: edge half %.4f ms, center half "
                    "%.4f ms, whole model %.4f ms\n",
                    f.repeats, f.edgeMs, f.centerMs, f.fullMs);
        std::printf("serving model: per-request cost edge %.3f ms, center %.3f ms, center-only %.3f ms (config), plus "
                    "FLOPs / speed; edges train between requests (step %.2f ms at edge 0); timeout %.0f ms, probe "
                    "every %.0f ms\n",
                    r.setup.edgeRequestSeconds * 1e3, r.setup.centerRequestSeconds * 1e3,
                    r.setup.centerFullRequestSeconds * 1e3, r.setup.trainStepOf(0) * 1e3, r.setup.timeoutSeconds * 1e3,
                    r.setup.probeSeconds * 1e3);
        std::printf("requests: %llu (Poisson, %g per s at each of %zu edges, %g virtual s, images from test "
                    "[%lld, 10000)); link edge<->center %.0f ms one way, %.0f Mb/s; center %.0f GFLOP/s\n",
                    (unsigned long long)r.requests, o.serve.ratePerEdge, r.edgeNames.size(), o.serve.virtualSeconds,
                    (long long)o.serve.validationImages, r.setup.edgeCenter.latencySeconds * 1000,
                    r.setup.edgeCenter.bandwidthBitsPerSecond / 1e6, r.setup.centerGflops);
        std::printf("wire: raw image %llu B, features %llu B (fp16 4x7x7), header %llu B, reply %llu B\n\n",
                    (unsigned long long)engine::ServingWire::kRawImageBytes,
                    (unsigned long long)engine::ServingWire::featureBytes(),
                    (unsigned long long)engine::ServingWire::kHeaderBytes,
                    (unsigned long long)engine::ServingWire::kReplyBytes);
        std::printf("baseline: center-only (every raw image to the center, whole model there)\n%s\n",
                    engine::serveTable(r).c_str());

        // Load: the same answers, a fresh stream per rate.
        engine::LoadScan scan;
        scan.answers = &r.answers;
        scan.setup = r.setup;
        scan.edges = int(r.edgeNames.size());
        scan.seconds = o.scanSeconds;
        scan.firstImage = o.serve.validationImages;
        scan.endImage = r.answers.size();
        scan.seed = o.serve.seed.value_or(scan.setup.seed);
        progress.next("capacity scan, edge-exit");
        const auto capEdge = engine::findCapacity(scan, engine::ServingMode::EdgeExit, kP99LimitMs);
        progress.next("capacity scan, center-only");
        const auto capCenter = engine::findCapacity(scan, engine::ServingMode::CenterOnly, kP99LimitMs);
        progress.next("the rate table, both modes");
        const auto rates = rateTable(scan, capEdge, capCenter);
        progress.endRun();
        progress.finish();
        std::printf("load (%g virtual s per rate): rate/edge  mode         mean ms    p95 ms    p99 ms  at edge  "
                    "degraded\n",
                    o.scanSeconds);
        for (const auto &p : rates)
            std::printf("%31.1f  %-11s %8.2f %9.2f %9.2f %7.1f%% %9llu\n", p.rate, modeName(p.mode), p.summary.meanMs,
                        p.summary.p95Ms, p.summary.p99Ms, 100 * p.summary.edgeShare,
                        (unsigned long long)p.summary.degraded);
        std::printf("capacity (p99 <= %.0f ms): edge-exit %s; center-only %s\n\n", kP99LimitMs,
                    capacityText(capEdge).c_str(), capacityText(capCenter).c_str());

        const double meanRatio = c.meanMs / e.meanMs;
        const double bytesRatio = double(e.bytesToCenter) / double(e.rawInputBytes);
        const double accDiffPp = 100 * (e.accuracy - c.accuracy);
        const std::vector<Goal> goals{
            {"edge share", e.edgeShare, ">= 0.60", e.edgeShare >= 0.60},
            {"accuracy edge-exit - center-only (pp)", accDiffPp, ">= -1.0", accDiffPp >= -1.0},
            {"mean latency center-only / edge-exit", meanRatio, ">= 2", meanRatio >= 2},
            {"bytes to center / raw inputs", bytesRatio, "<= 0.20", bytesRatio <= 0.20},
        };
        bool all = true;
        std::printf("goals at threshold %.2f, %g requests per s per edge:\n", r.setup.threshold, o.serve.ratePerEdge);
        for (const auto &g : goals) {
            std::printf("  %-40s %10.4f  %-8s %s\n", g.name.c_str(), g.value, g.bound.c_str(),
                        g.met ? "met" : "NOT MET");
            all = all && g.met;
        }
        std::printf("  capacity edge-exit vs center-only: %.1f vs %.1f per s per edge (reported, no goal)\n",
                    capEdge.rate, capCenter.rate);
        std::printf("\nthreshold sweep on test images [0, %lld) (the validation split; no request draws from it):\n%s",
                    (long long)o.serve.validationImages, engine::sweepTable(r.sweep, r.setup.threshold).c_str());
        std::printf("\nlatency edge-exit: mean %.3f ms, p95 %.3f, p99 %.3f (p50 %.3f); center-only: mean %.3f, "
                    "p95 %.3f, p99 %.3f (p50 %.3f)\n",
                    e.meanMs, e.p95Ms, e.p99Ms, e.p50Ms, c.meanMs, c.p95Ms, c.p99Ms, c.p50Ms);
        std::printf("benchmark wall time %.1f s (training included, load scan not)\nreproduce: %s\n", r.wallSeconds,
                    o.commandLine.c_str());

        if (!o.json.empty()) {
            json j = json::parse(engine::serveReportJson(o.serve, r));
            j["benchmark"] = "inference";
            j["reproduce"] = o.commandLine;
            j["edge_share"] = e.edgeShare;
            j["accuracy_edge_exit"] = e.accuracy;
            j["accuracy_center_only"] = c.accuracy;
            j["mean_ms_edge_exit"] = e.meanMs;
            j["mean_ms_center_only"] = c.meanMs;
            j["p50_ms_edge_exit"] = e.p50Ms; // kept for old readers; no longer the headline
            j["p50_ms_center_only"] = c.p50Ms;
            j["p95_ms_edge_exit"] = e.p95Ms;
            j["p95_ms_center_only"] = c.p95Ms;
            j["p99_ms_edge_exit"] = e.p99Ms;
            j["p99_ms_center_only"] = c.p99Ms;
            j["bytes_to_center"] = e.bytesToCenter;
            j["raw_input_bytes"] = e.rawInputBytes;
            j["capacity_rps_edge_exit"] = capEdge.rate;
            j["capacity_rps_center_only"] = capCenter.rate;
            j["capacity_found_edge_exit"] = capEdge.found;
            j["capacity_found_center_only"] = capCenter.found;
            j["capacity_p99_limit_ms"] = kP99LimitMs;
            j["scan_virtual_seconds"] = o.scanSeconds;
            json rs = json::array();
            for (const auto &p : rates)
                rs.push_back({{"rate_per_edge", p.rate},
                              {"mode", modeName(p.mode)},
                              {"requests", p.summary.requests},
                              {"mean_ms", p.summary.meanMs},
                              {"p95_ms", p.summary.p95Ms},
                              {"p99_ms", p.summary.p99Ms},
                              {"edge_share", p.summary.edgeShare},
                              {"accuracy", p.summary.accuracy},
                              {"degraded", p.summary.degraded}});
            j["rates"] = rs;
            j["measured_edge_forward_ms"] = f.edgeMs;
            j["measured_center_forward_ms"] = f.centerMs;
            j["measured_full_forward_ms"] = f.fullMs;
            j["measured_forward_repeats"] = f.repeats;
            json g = json::array();
            for (const auto &goal : goals)
                g.push_back({{"goal", goal.name}, {"value", goal.value}, {"bound", goal.bound}, {"met", goal.met}});
            j["goals"] = g;
            j["hardware_threads"] = std::thread::hardware_concurrency();
            j["blas_threads"] = engine::blasThreads();
            std::ofstream(o.json) << j.dump(2) << "\n";
            std::printf("report written to %s\n", o.json.c_str());
        }
        return all ? 0 : 1;
    } catch (const std::exception &ex) {
        progress.line(std::string("synaptic-bench-inference: ") + ex.what());
        return 1;
    }
}
