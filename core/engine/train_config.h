#pragma once

#include "config_error.h"

#include <cstdint>
#include <string>

namespace synaptic::engine {

// Everything a training run needs. Plain values only: this header is included
// by the UI and the CLI, which must not see LibTorch.
struct TrainConfig {
    int epochs = 5;
    std::size_t subset = 0;     // 0 = the whole training set
    std::size_t testSubset = 0; // 0 = the whole test set
    int batchSize = 64;
    // 3e-3 with batch-norm and the cosine decay: 0.915 after 5 epochs here,
    // against 0.906 for 1e-3 (docs/BENCHMARKS.md).
    double learningRate = 3e-3;
    // "cosine": the learning rate decays from learningRate to 0 over the run
    // along a half cosine; "constant": no decay.
    std::string lrSchedule = "cosine";
    double exitWeight = 0.3; // weight of the early-exit head's loss
    int threads = 0;         // 0 = one per hardware thread
    std::string device = "auto";
    std::uint64_t seed = 1;
    std::string dataDir;      // empty = $SYNAPTIC_DATA_DIR or the Debian dataset
    int progressEverySteps = 20;
    int evalEverySteps = 0;   // 0 = evaluate at the end of each epoch only
    // Where run() saves the trained model (model_file.h, atomic); empty =
    // not saved. A command-line choice (`train --model FILE`), not a config key.
    std::string modelPath;
};

// Checks ranges; throws ConfigError naming the first bad field.
void validate(const TrainConfig &config);

// Reads a JSON file of the form {"training": {"epochs": 5, "batch": 64, ...},
// "data": {"dir": "..."}} over `base`; unknown keys are errors so typos
// don't silently do nothing. Throws ConfigError with "FILE: training.batch: ..."
TrainConfig loadTrainConfig(const std::string &path, TrainConfig base = {});

} // namespace synaptic::engine
