#pragma once

#include "core/data/fashion_mnist.h"

#include <ATen/core/Tensor.h>

#include <string>

namespace synaptic::engine {

// A task's samples as tensors on one device, in one of two shapes:
// - dense (images): inputs [N, ...] float, one row per sample; offsets undefined;
// - ragged (texts): inputs int64, every sample's rows of an embedding table
//   concatenated; offsets int64 [N + 1] on the CPU, where each sample's rows
//   start (the last entry is inputs' length).
// labels [N] int64 in both.
struct TensorSet {
    at::Tensor inputs;
    at::Tensor labels;
    at::Tensor offsets;
    std::int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
    bool ragged() const { return offsets.defined(); }
};

// Fashion-MNIST images normalised: inputs [N, 1, 28, 28].
TensorSet toTensors(const data::ImageSet &set, const std::string &device);

// Samples [begin, end) as a set of their own (views of the same storage).
TensorSet sliceSamples(const TensorSet &set, std::int64_t begin, std::int64_t end);
// The samples at `idx` (int64, any device), in that order: a batch.
TensorSet selectSamples(const TensorSet &set, const at::Tensor &idx);

} // namespace synaptic::engine
