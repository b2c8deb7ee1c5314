#include "serve_runner.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/compute_threads.h"
#include "core/engine/device.h"
#include "core/engine/json_number.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/trainer.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>
#include <torch/utils.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace synaptic::engine {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

void checkRequest(const ServeRequest &r, const ClusterConfig &config) {
    if (config.task != "fashion-mnist") // early-exit serving is the split CNN's
        throw ConfigError("task", "serve runs the fashion-mnist task's early-exit model; this config's task is '" +
                                      config.task + "'");
    if (!r.confidence.empty() && !parseConfidenceMeasure(r.confidence))
        throw ConfigError("--confidence", "unknown measure '" + r.confidence + "' (max_softmax or entropy)");
    if (r.threshold && !(*r.threshold >= 0 && *r.threshold <= 1))
        throw ConfigError("--threshold", "must be between 0 and 1");
    if (!(r.ratePerEdge > 0) || !std::isfinite(r.ratePerEdge))
        throw ConfigError("--rate", "must be > 0 requests per virtual second per edge");
    if (!(r.virtualSeconds > 0) || !std::isfinite(r.virtualSeconds))
        throw ConfigError("--virtual-seconds", "must be > 0");
    if (r.linkLatencyMs && !(*r.linkLatencyMs >= 0))
        throw ConfigError("--latency-ms", "must be >= 0");
    if (r.modelPath.empty() && r.trainEpochs < 1)
        throw ConfigError("--epochs", "must be at least 1 (or give --model FILE)");
    if (r.validationImages < 1 || r.validationImages >= 10000)
        throw ConfigError("--validation", "must leave test images for both the sweep and the requests (1..9999)");
    for (const auto &[name, t] : r.edgeThresholds) {
        bool found = false;
        for (const auto &region : config.regions)
            for (const auto &e : region.edges)
                found = found || e.name == name;
        if (!found)
            throw ConfigError("--edge-threshold", "no edge named '" + name + "' in " + r.configPath);
        if (!(t >= 0 && t <= 1))
            throw ConfigError("--edge-threshold", name + ": must be between 0 and 1");
    }
}

} // namespace

void checkServeRequest(const ServeRequest &request) {
    checkRequest(request, loadClusterConfig(request.configPath));
}

ServeResult runServe(const ServeRequest &r) {
    const auto wallStart = Clock::now();
    const ClusterConfig config = loadClusterConfig(r.configPath);
    checkRequest(r, config);
    const std::string measureName = r.confidence.empty() ? config.serving.confidence : r.confidence;
    const ConfidenceMeasure measure = *parseConfidenceMeasure(measureName);
    const std::uint64_t seed = r.seed.value_or(config.seed);
    const std::string device = resolveDevice(r.device);
    setComputeThreads(resolveThreadCount(r.threads));
    torch::manual_seed(seed);

    const auto stage = [&](const char *name) {
        if (r.onStage)
            r.onStage(name);
    };
    ServeResult out;
    stage("loading the test set");
    const std::string dataDir = r.dataDir.empty() ? config.dataDir : r.dataDir;
    const TensorSet test =
        toTensors(data::loadFashionMnist(data::resolveDataDir(dataDir), data::Split::Test), device);
    if (test.size() <= r.validationImages)
        throw ConfigError("--validation", "the test set has only " + std::to_string(test.size()) + " images");

    SynapticNet model;
    model->to(torch::Device(device));
    if (!r.modelPath.empty()) {
        const ModelFileInfo info = loadModel(r.modelPath, model);
        out.modelSource = "loaded " + r.modelPath + (info.source.empty() ? "" : " (" + info.source + ")");
    } else {
        TrainConfig t;
        t.epochs = r.trainEpochs;
        t.seed = seed;
        t.threads = r.threads;
        t.device = r.device;
        t.dataDir = dataDir;
        t.progressEverySteps = r.onTrainProgress ? 20 : 1 << 30;
        const bool keep = !r.saveModelPath.empty();
        t.modelPath = keep ? r.saveModelPath
                           : (std::filesystem::temp_directory_path() /
                              ("synaptic-serve-" + std::to_string(::getpid()) + ".synmodel"))
                                 .string();
        Trainer(t).run(r.onTrainProgress);
        loadModel(t.modelPath, model);
        if (!keep)
            std::filesystem::remove(t.modelPath);
        out.modelSource = "trained here: " + std::to_string(r.trainEpochs) + " epochs, seed " + std::to_string(seed) +
                          (keep ? ", saved to " + r.saveModelPath : "");
    }
    // One pass over the test set gives both the serving answers and the
    // model's accuracies: fullClass is forward(x) exactly, exitClass its exit head.
    if (r.measureForwardCosts) {
        stage("timing forward passes");
        out.forwardCosts = measureForwardCosts(model, test);
    }
    stage("answering every test image at the edge and the center");
    out.answers = predictSplit(model, test, measure);
    const SplitPredictions &answers = out.answers;
    std::int64_t right = 0, exitRight = 0;
    for (std::int64_t i = 0; i < answers.size(); ++i) {
        right += answers.fullClass[std::size_t(i)] == answers.label[std::size_t(i)];
        exitRight += answers.exitClass[std::size_t(i)] == answers.label[std::size_t(i)];
    }
    out.modelTestAccuracy = double(right) / double(answers.size());
    out.modelExitAccuracy = double(exitRight) / double(answers.size());
    out.sweep = thresholdSweep(answers, 0, r.validationImages, defaultSweepThresholds());

    ServingSetup &s = out.setup;
    s.threshold = r.threshold.value_or(config.knobs.confidenceThreshold);
    s.centerGflops = config.centerGflops;
    s.timeoutSeconds = config.serving.timeoutMs / 1000.0;
    s.probeSeconds = config.serving.probeMs / 1000.0;
    s.edgeRequestSeconds = config.serving.edgeRequestMs / 1000.0;
    s.centerRequestSeconds = config.serving.centerRequestMs / 1000.0;
    s.centerFullRequestSeconds = config.serving.centerFullRequestMs / 1000.0;
    s.edgeCenter = config.edgeCenter;
    if (r.linkLatencyMs)
        s.edgeCenter.latencySeconds = *r.linkLatencyMs / 1000.0;
    s.seed = seed;
    for (const auto &region : config.regions)
        for (const auto &e : region.edges) {
            out.edgeNames.push_back(e.name);
            s.edgeGflops.push_back(e.gflops);
            // Edges serve while they train, as in the cluster (issue 14 §6).
            s.trainStepSeconds.push_back(edgeTrainStepSeconds(config.batchSize, e.gflops));
            const auto it = r.edgeThresholds.find(e.name);
            s.edgeThreshold.push_back(it == r.edgeThresholds.end() ? std::numeric_limits<double>::quiet_NaN()
                                                                   : it->second);
        }
    const int edges = int(out.edgeNames.size());
    const auto requests = poissonRequests(edges, r.ratePerEdge, r.virtualSeconds, r.validationImages, test.size(), seed);
    out.requests = requests.size();
    stage("serving the request stream with early exit");
    out.edgeExit = summarize(simulateServing(answers, requests, s), edges);
    if (r.centerOnlyBaseline) {
        stage("serving the same stream center-only (baseline)");
        ServingSetup base = s;
        base.mode = ServingMode::CenterOnly;
        out.centerOnly = summarize(simulateServing(answers, requests, base), edges);
    }
    out.confidence = measureName;
    out.wallSeconds = std::chrono::duration<double>(Clock::now() - wallStart).count();
    return out;
}

std::string serveReportJson(const ServeRequest &r, const ServeResult &res) {
    json edges = json::array();
    for (std::size_t e = 0; e < res.edgeNames.size(); ++e)
        edges.push_back({{"name", res.edgeNames[e]},
                         {"gflops", res.setup.edgeGflops[e]},
                         {"train_step_ms", res.setup.trainStepOf(int(e)) * 1000},
                         {"threshold", res.setup.thresholdOf(int(e))}});
    json j = {{"config", r.configPath},
              {"model", res.modelSource},
              {"model_test_accuracy", finiteOrNull(res.modelTestAccuracy)},
              {"model_exit_test_accuracy", finiteOrNull(res.modelExitAccuracy)},
              {"threshold", res.setup.threshold},
              {"confidence", res.confidence},
              {"rate_per_edge", r.ratePerEdge},
              {"virtual_seconds", r.virtualSeconds},
              {"requests", res.requests},
              {"link", {{"latency_ms", res.setup.edgeCenter.latencySeconds * 1000},
                        {"bandwidth_bits_per_s", res.setup.edgeCenter.bandwidthBitsPerSecond},
                        {"loss", res.setup.edgeCenter.lossRate}}},
              {"center_gflops", res.setup.centerGflops},
              {"timeout_ms", res.setup.timeoutSeconds * 1000},
              {"probe_ms", res.setup.probeSeconds * 1000},
              {"request_cost_ms", {{"edge", res.setup.edgeRequestSeconds * 1000},
                                   {"center", res.setup.centerRequestSeconds * 1000},
                                   {"center_full", res.setup.centerFullRequestSeconds * 1000}}},
              {"edges", edges},
              {"wire_bytes", {{"raw_image", ServingWire::kRawImageBytes}, {"features", ServingWire::featureBytes()},
                              {"header", ServingWire::kHeaderBytes}, {"reply", ServingWire::kReplyBytes}}},
              {"edge_exit", toJson(res.edgeExit)},
              {"sweep", toJson(res.sweep)},
              {"wall_seconds", res.wallSeconds}};
    if (res.centerOnly)
        j["center_only"] = toJson(*res.centerOnly);
    return j.dump(2) + "\n";
}

std::string sweepTable(const std::vector<SweepPoint> &sweep, double operating) {
    std::ostringstream o;
    char line[160];
    o << "threshold  edge share  accuracy  edge-answer accuracy\n";
    // Mark the sweep point closest to the operating threshold.
    std::size_t mark = 0;
    for (std::size_t i = 0; i < sweep.size(); ++i)
        if (std::abs(sweep[i].threshold - operating) < std::abs(sweep[mark].threshold - operating))
            mark = i;
    for (std::size_t i = 0; i < sweep.size(); ++i) {
        const auto &p = sweep[i];
        std::snprintf(line, sizeof line, "%9.2f  %9.1f%%  %8.4f  %s%s\n", p.threshold, 100 * p.edgeShare, p.accuracy,
                      std::isfinite(p.accuracyEdge) ? (std::to_string(p.accuracyEdge).substr(0, 6)).c_str() : "-",
                      i == mark ? "   <- operating point" : "");
        o << line;
    }
    return o.str();
}

std::string serveTable(const ServeResult &res) {
    std::ostringstream o;
    char line[200];
    auto row = [&](const char *name, const ServingSummary &s) {
        std::snprintf(line, sizeof line, "%-11s %7.1f%% %9.4f %9.3f %9.3f %9.3f %12llu %10llu\n", name,
                      100 * s.edgeShare, s.accuracy, s.meanMs, s.p95Ms, s.p99Ms, (unsigned long long)s.bytesToCenter,
                      (unsigned long long)s.degraded);
        o << line;
    };
    // Mean and tail, not the median: with most answers at the edge the
    // median says only how fast the exit head is (issue 14 §6).
    o << "mode        at edge  accuracy  mean ms    p95 ms    p99 ms  B to center   degraded\n";
    row("edge-exit", res.edgeExit);
    if (res.centerOnly) {
        row("center-only", *res.centerOnly);
        const auto &c = *res.centerOnly;
        const auto &e = res.edgeExit;
        std::snprintf(line, sizeof line,
                      "edge-exit vs center-only: accuracy %+.2f pp, mean latency %.1fx lower, bytes to center %.3f "
                      "of raw inputs (%llu of %llu)\n",
                      100 * (e.accuracy - c.accuracy), e.meanMs > 0 ? c.meanMs / e.meanMs : INFINITY,
                      double(e.bytesToCenter) / double(e.rawInputBytes), (unsigned long long)e.bytesToCenter,
                      (unsigned long long)e.rawInputBytes);
        o << line;
    }
    return o.str();
}

} // namespace synaptic::engine
