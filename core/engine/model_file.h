#pragma once

#include "model.h"

#include <stdexcept>
#include <string>

namespace synaptic::engine {

// A model file that cannot be used, with the path and what is wrong with it:
// "m.synmodel: checksum mismatch (the file is damaged)".
class ModelFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What travels with the weights: where they came from, for `serve` and the
// bench to print.
struct ModelFileInfo {
    std::string source;        // "train", "sim:<strategy>", "bench/inference"
    double testAccuracy = -1;  // as measured when it was saved (-1: unknown)
    double exitTestAccuracy = -1;
    std::string savedAt;       // UTC, ISO 8601
};

// Writes every parameter and batch-norm buffer of `model` (copied to the
// CPU) atomically: a temporary file in the same folder, flushed and synced,
// then renamed over `path`, so a crash leaves either the old file or the
// new one. Layout: "SYNMODEL" magic, format version, a JSON header (info and
// the architecture: every tensor's name and shape), a LibTorch archive,
// a CRC-32 over everything before it. Throws ModelFileError.
void saveModel(const std::string &path, torch::nn::Module &model, const ModelFileInfo &info);
inline void saveModel(const std::string &path, SynapticNet &model, const ModelFileInfo &info) {
    saveModel(path, *model, info);
}

// Reads a file written by saveModel into `model` (on the model's device).
// Refuses, with ModelFileError naming the path and the problem, a missing
// file, a wrong magic, a newer format, a damaged file (CRC), a truncated
// file, and an architecture that differs from this build's (a tensor
// missing or of another shape). `model` is untouched when it throws.
ModelFileInfo loadModel(const std::string &path, torch::nn::Module &model);
inline ModelFileInfo loadModel(const std::string &path, SynapticNet &model) { return loadModel(path, *model); }

} // namespace synaptic::engine
