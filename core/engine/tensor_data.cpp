#include "tensor_data.h"

#include <torch/types.h>

namespace synaptic::engine {

TensorSet toTensors(const data::ImageSet &set, const std::string &device) {
    const auto n = static_cast<std::int64_t>(set.size());
    // from_blob does not copy; clone() before the ImageSet can go away.
    auto pixels = torch::from_blob(const_cast<std::uint8_t *>(set.pixels.data()),
                                   {n, 1, data::kImageSide, data::kImageSide}, torch::kUInt8);
    auto labels = torch::from_blob(const_cast<std::uint8_t *>(set.labels.data()), {n}, torch::kUInt8);
    TensorSet out;
    out.images = ((pixels.to(torch::kFloat32) / 255.0f - data::kPixelMean) / data::kPixelStd).to(device);
    out.labels = labels.to(torch::kInt64).to(device);
    return out;
}

} // namespace synaptic::engine
