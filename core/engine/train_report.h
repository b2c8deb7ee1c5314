#pragma once

#include <string>
#include <vector>

namespace synaptic::engine {

// One point of the training curve, as the trainer reports it (trainer thread)
// to whoever listens: the CLI's progress bar, the GUI's chart, the report.
struct TrainProgress {
    enum class Kind { Step, Evaluation, Finished };
    Kind kind = Kind::Step;
    int epoch = 0;              // 1-based epoch the step belongs to
    int epochs = 0;
    long long step = 0;         // optimizer steps so far
    long long totalSteps = 0;
    long long samplesSeen = 0;
    double loss = 0;            // mean training loss since the previous report
    double exitLoss = 0;        // mean exit-head loss over the same steps
    double samplesPerSecond = 0;
    double trainSeconds = 0;    // training time so far, evaluation excluded
    double etaSeconds = 0;
    double testAccuracy = -1;     // set on Evaluation / Finished, else -1
    double exitTestAccuracy = -1; // same, for the early-exit head
};

struct LossPoint {
    long long step;
    int epoch;
    double loss;
};

struct EvalPoint {
    long long step;
    int epoch;
    double testAccuracy;
    double exitTestAccuracy;
};

struct TrainReport {
    double testAccuracy = 0;
    double exitTestAccuracy = 0;
    int epochs = 0;          // epochs completed
    long long steps = 0;
    long long samples = 0;   // training samples processed
    double samplesPerSecond = 0;
    double trainSeconds = 0; // training only
    double evalSeconds = 0;
    double wallSeconds = 0;  // everything, data loading included
    std::string device;
    int threads = 0;
    int blasThreads = 0; // OpenBLAS's pool; 0: not OpenBLAS
    long long parameters = 0;
    long long trainSetSize = 0;
    long long testSetSize = 0;
    int batchSize = 0;
    double learningRate = 0;
    std::string lrSchedule;
    unsigned long long seed = 0;
    bool stopped = false;    // stopped early by request
    std::vector<LossPoint> lossCurve;
    std::vector<EvalPoint> evalCurve;
};

// The report as pretty-printed JSON (the CLI's --report file).
std::string toJson(const TrainReport &report);

// Writes `text` to `path` via a temporary file and rename, so an existing
// report is never left half-written. Throws std::runtime_error naming the path.
void writeFileAtomically(const std::string &path, const std::string &text);

} // namespace synaptic::engine
