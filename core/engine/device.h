#pragma once

#include <string>

namespace synaptic::engine {

// Turns "cpu", "cuda", "cuda:N" or "auto" into the device string tensors will
// live on. "auto" picks CUDA when LibTorch sees a GPU, else CPU. Throws
// std::invalid_argument naming the request when it is unknown or when CUDA is
// asked for but not available in this build or on this machine.
std::string resolveDevice(const std::string &requested);

// True when this LibTorch build can reach a CUDA device.
bool cudaAvailable();

} // namespace synaptic::engine
