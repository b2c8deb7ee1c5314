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
        if (requested != "cuda") {
            const std::string ordinal = requested.substr(5);
            const int count = static_cast<int>(torch::cuda::device_count());
            if (ordinal.empty() || ordinal.size() > 3 ||
                ordinal.find_first_not_of("0123456789") != std::string::npos || std::stoi(ordinal) >= count)
                throw std::invalid_argument("device '" + requested + "': no such CUDA device (this machine has " +
                                            std::to_string(count) + ")");
        }
        return requested;
    }
    throw std::invalid_argument("unknown device '" + requested + "' (expected cpu, cuda, cuda:N or auto)");
}

} // namespace synaptic::engine
