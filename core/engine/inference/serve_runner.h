#pragma once

#include "forward_timing.h"
#include "serving_report.h"

#include "core/engine/model_file.h"
#include "core/engine/train_report.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::engine {

// What `synaptic-node serve` and bench/inference ask for (issue 6 §7): a
// cluster config (its edges, their gflops, the edge<->center link, the
// center's gflops and knobs.confidence_threshold), a trained model (loaded,
// or trained first), and a Poisson request stream over the test images.
struct ServeRequest {
    std::string configPath;
    std::string modelPath;          // load this model; empty = train first
    std::string saveModelPath;      // where a model trained here is saved (empty: not kept)
    int trainEpochs = 2;            // when training first
    std::optional<double> threshold;           // overrides the config's knob
    std::map<std::string, double> edgeThresholds; // edge name -> threshold
    double ratePerEdge = 20;        // requests per virtual second at each edge
    double virtualSeconds = 30;
    std::string confidence;         // max_softmax or entropy; empty = the config's serving.confidence
    std::int64_t validationImages = 5000; // test images [0, n) for the sweep; requests draw from [n, 10000)
    std::optional<std::uint64_t> seed;     // overrides the config's
    std::optional<double> linkLatencyMs;   // overrides the config's edge<->center one-way latency
    bool centerOnlyBaseline = true;        // also serve the same stream center-only
    std::string device = "cpu";
    int threads = 0;
    std::string dataDir;
    bool measureForwardCosts = false;      // time one image's forward passes on this machine (bench/inference)
    // Progress, on the calling thread: the model's training (when it is
    // trained here), then each later stage by name as it starts.
    std::function<void(const TrainProgress &)> onTrainProgress;
    std::function<void(const std::string &stage)> onStage;
};

struct ServeResult {
    std::string confidence;         // the measure used
    std::string modelSource;        // "loaded FILE (train)", "trained here: 2 epochs"
    double modelTestAccuracy = -1;  // the full model on every test image
    double modelExitAccuracy = -1;
    ServingSetup setup;
    std::vector<std::string> edgeNames;
    std::uint64_t requests = 0;
    ServingSummary edgeExit;
    std::optional<ServingSummary> centerOnly;
    std::vector<SweepPoint> sweep;  // on the validation images
    SplitPredictions answers;       // every test image's answers, for more runs of the same model (load scans)
    std::optional<ForwardCosts> forwardCosts; // when the request asked for them
    double wallSeconds = 0;
};

// Loads the config and checks the request against it: ConfigError naming
// the flag or config field. Loads no data.
void checkServeRequest(const ServeRequest &request);

// Checks the request (ConfigError naming the flag or config field), loads
// the config and data, gets the model, serves. DataError for missing data,
// ModelFileError for a bad model file.
ServeResult runServe(const ServeRequest &request);

std::string serveReportJson(const ServeRequest &request, const ServeResult &result);
// The terminal summary: both modes side by side with ratios, then the sweep.
std::string serveTable(const ServeResult &result);
std::string sweepTable(const std::vector<SweepPoint> &sweep, double operatingThreshold);

} // namespace synaptic::engine
