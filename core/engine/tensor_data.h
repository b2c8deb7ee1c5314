#pragma once

#include "core/data/fashion_mnist.h"

#include <ATen/core/Tensor.h>

#include <string>

namespace synaptic::engine {

// An image set as normalised float tensors on one device:
// images [N, 1, 28, 28], labels [N] (int64).
struct TensorSet {
    at::Tensor images;
    at::Tensor labels;
    std::int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

TensorSet toTensors(const data::ImageSet &set, const std::string &device);

} // namespace synaptic::engine
