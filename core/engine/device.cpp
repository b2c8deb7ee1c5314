#include "device.h"

#include <torch/cuda.h>

#include <stdexcept>

namespace synaptic::engine {

bool cudaAvailable() { return torch::cuda::is_available(); }

std::string resolveDevice(const std::string &requested) {
    if (requested == "cpu")
        return "cpu";
    if (requested == "auto")
        return cudaAvailable() ? "cuda" : "cpu";
    if (requested == "cuda" || requested.rfind("cuda:", 0) == 0) {
        if (!cudaAvailable())
            throw std::invalid_argument("device '" + requested +
                                        "' requested but this LibTorch build sees no CUDA device (use cpu or auto)");
        return requested;
    }
    throw std::invalid_argument("unknown device '" + requested + "' (expected cpu, cuda, cuda:N or auto)");
}

} // namespace synaptic::engine
