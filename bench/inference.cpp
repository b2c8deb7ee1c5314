// bench/inference: early-exit serving against center-only serving of the
// same trained model and the same Poisson request stream (issue 6), with
// 40 ms one-way edge<->center latency, at threshold 0.85; the goals checked
// in the same run, the threshold sweep on the validation images, and how
// fast the serving simulation itself runs.
//
//   build/release/bench/synaptic-bench-inference [--config FILE] [--model FILE]
//       [--epochs N] [--threshold X] [--rate R] [--virtual-seconds S]
//       [--latency-ms MS] [--confidence max_softmax|entropy] [--seed N]
//       [--threads N] [--save-model FILE] [--json FILE]
#include "core/engine/inference/serve_runner.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

using namespace synaptic;
using nlohmann::json;

namespace {

struct Options {
    engine::ServeRequest serve;
    std::string json;
    std::string commandLine;
};

bool parse(int argc, char **argv, Options &o) {
    auto &s = o.serve;
    s.configPath = SYNAPTIC_DEFAULT_CONFIG;
    s.threshold = 0.85;
    s.linkLatencyMs = 40;
    s.trainEpochs = 5;
    s.ratePerEdge = 20;
    s.virtualSeconds = 60;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h" || i + 1 >= argc) {
            std::fprintf(stderr, "usage: synaptic-bench-inference [--config FILE] [--model FILE] [--epochs N] "
                                 "[--threshold X] [--rate R] [--virtual-seconds S] [--latency-ms MS] "
                                 "[--confidence max_softmax|entropy] [--seed N] [--threads N] [--save-model FILE] "
                                 "[--json FILE]\n");
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
    o.commandLine = "build/release/bench/synaptic-bench-inference";
    if (!s.modelPath.empty())
        o.commandLine += " --model " + s.modelPath;
    else
        o.commandLine += " --epochs " + std::to_string(s.trainEpochs);
    char buf[256];
    std::snprintf(buf, sizeof buf, " --threshold %g --rate %g --virtual-seconds %g --latency-ms %g", *s.threshold,
                  s.ratePerEdge, s.virtualSeconds, *s.linkLatencyMs);
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

} // namespace

int main(int argc, char **argv) {
    Options o;
    if (!parse(argc, argv, o))
        return 2;
    try {
        engine::checkServeRequest(o.serve);
        std::printf("synaptic-bench-inference: %s, %u hardware threads\n", o.serve.configPath.c_str(),
                    std::thread::hardware_concurrency());
        const engine::ServeResult r = engine::runServe(o.serve);
        const auto &e = r.edgeExit;
        const auto &c = *r.centerOnly;
        std::printf("model: %s; full model %.4f, exit head %.4f on all 10,000 test images\n", r.modelSource.c_str(),
                    r.modelTestAccuracy, r.modelExitAccuracy);
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

        const double p50Ratio = c.p50Ms / e.p50Ms;
        const double bytesRatio = double(e.bytesToCenter) / double(e.rawInputBytes);
        const double accDiffPp = 100 * (e.accuracy - c.accuracy);
        const std::vector<Goal> goals{
            {"edge share", e.edgeShare, ">= 0.60", e.edgeShare >= 0.60},
            {"accuracy edge-exit - center-only (pp)", accDiffPp, ">= -1.0", accDiffPp >= -1.0},
            {"p50 center-only / edge-exit", p50Ratio, ">= 3", p50Ratio >= 3},
            {"bytes to center / raw inputs", bytesRatio, "<= 0.20", bytesRatio <= 0.20},
        };
        bool all = true;
        std::printf("goals at threshold %.2f:\n", r.setup.threshold);
        for (const auto &g : goals) {
            std::printf("  %-40s %10.4f  %-8s %s\n", g.name.c_str(), g.value, g.bound.c_str(),
                        g.met ? "met" : "NOT MET");
            all = all && g.met;
        }
        std::printf("\nthreshold sweep on test images [0, %lld) (the validation split; no request draws from it):\n%s",
                    (long long)o.serve.validationImages, engine::sweepTable(r.sweep, r.setup.threshold).c_str());
        std::printf("\nlatency edge-exit: p50 %.3f ms, p95 %.3f, p99 %.3f; center-only: p50 %.3f, p95 %.3f, p99 %.3f\n",
                    e.p50Ms, e.p95Ms, e.p99Ms, c.p50Ms, c.p95Ms, c.p99Ms);
        std::printf("benchmark wall time %.1f s (training included)\nreproduce: %s\n", r.wallSeconds,
                    o.commandLine.c_str());

        if (!o.json.empty()) {
            json j = json::parse(engine::serveReportJson(o.serve, r));
            j["benchmark"] = "inference";
            j["reproduce"] = o.commandLine;
            j["edge_share"] = e.edgeShare;
            j["accuracy_edge_exit"] = e.accuracy;
            j["accuracy_center_only"] = c.accuracy;
            j["p50_ms_edge_exit"] = e.p50Ms;
            j["p50_ms_center_only"] = c.p50Ms;
            j["p99_ms_edge_exit"] = e.p99Ms;
            j["p99_ms_center_only"] = c.p99Ms;
            j["bytes_to_center"] = e.bytesToCenter;
            j["raw_input_bytes"] = e.rawInputBytes;
            json g = json::array();
            for (const auto &goal : goals)
                g.push_back({{"goal", goal.name}, {"value", goal.value}, {"bound", goal.bound}, {"met", goal.met}});
            j["goals"] = g;
            j["hardware_threads"] = std::thread::hardware_concurrency();
            std::ofstream(o.json) << j.dump(2) << "\n";
            std::printf("report written to %s\n", o.json.c_str());
        }
        return all ? 0 : 1;
    } catch (const std::exception &ex) {
        std::fprintf(stderr, "synaptic-bench-inference: %s\n", ex.what());
        return 1;
    }
}
