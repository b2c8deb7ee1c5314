#include "tensor_data.h"

#include <torch/types.h>

#include <stdexcept>

namespace synaptic::engine {

TensorSet toTensors(const data::ImageSet &set, const std::string &device) {
    const auto n = static_cast<std::int64_t>(set.size());
    // from_blob does not copy; clone() before the ImageSet can go away.
    auto pixels = torch::from_blob(const_cast<std::uint8_t *>(set.pixels.data()),
                                   {n, 1, data::kImageSide, data::kImageSide}, torch::kUInt8);
    auto labels = torch::from_blob(const_cast<std::uint8_t *>(set.labels.data()), {n}, torch::kUInt8);
    TensorSet out;
    out.inputs = ((pixels.to(torch::kFloat32) / 255.0f - data::kPixelMean) / data::kPixelStd).to(device);
    out.labels = labels.to(torch::kInt64).to(device);
    return out;
}

namespace {

// A ragged set's offsets are read through raw pointers: refuse anything but
// the layout tensor_data.h promises, naming what is wrong.
void checkRagged(const TensorSet &set, const char *where) {
    const auto &o = set.offsets;
    if (!o.device().is_cpu() || o.scalar_type() != torch::kInt64 || !o.is_contiguous() || o.dim() != 1 ||
        o.size(0) != set.size() + 1)
        throw std::invalid_argument(std::string(where) + ": a ragged set's offsets must be a contiguous int64 CPU "
                                    "tensor of " + std::to_string(set.size() + 1) + " entries (samples + 1)");
}

} // namespace

TensorSet sliceSamples(const TensorSet &set, std::int64_t begin, std::int64_t end) {
    if (begin < 0 || end < begin || end > set.size())
        throw std::out_of_range("sliceSamples: [" + std::to_string(begin) + ", " + std::to_string(end) +
                                ") outside a set of " + std::to_string(set.size()));
    TensorSet out;
    out.labels = set.labels.slice(0, begin, end);
    if (!set.ragged()) {
        out.inputs = set.inputs.slice(0, begin, end);
        return out;
    }
    checkRagged(set, "sliceSamples");
    const auto *off = set.offsets.data_ptr<std::int64_t>();
    out.inputs = set.inputs.slice(0, off[begin], off[end]);
    out.offsets = set.offsets.slice(0, begin, end + 1) - off[begin];
    return out;
}

TensorSet selectSamples(const TensorSet &set, const at::Tensor &idx) {
    TensorSet out;
    if (!set.ragged()) {
        out.labels = set.labels.index_select(0, idx.to(set.labels.device()));
        out.inputs = set.inputs.index_select(0, idx.to(set.inputs.device()));
        return out;
    }
    // Gather each sample's run of rows: one index list over the inputs.
    checkRagged(set, "selectSamples");
    const auto cpuIdx = idx.to(torch::kCPU, torch::kInt64).contiguous();
    const auto *which = cpuIdx.data_ptr<std::int64_t>();
    const auto *off = set.offsets.data_ptr<std::int64_t>();
    const std::int64_t n = cpuIdx.numel();
    for (std::int64_t i = 0; i < n; ++i)
        if (which[i] < 0 || which[i] >= set.size())
            throw std::out_of_range("selectSamples: sample " + std::to_string(which[i]) + " of a set of " +
                                    std::to_string(set.size()));
    auto offsets = torch::empty({n + 1}, torch::kInt64);
    auto *o = offsets.data_ptr<std::int64_t>();
    o[0] = 0;
    for (std::int64_t i = 0; i < n; ++i)
        o[i + 1] = o[i] + (off[which[i] + 1] - off[which[i]]);
    auto rows = torch::empty({o[n]}, torch::kInt64);
    auto *r = rows.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t k = off[which[i]]; k < off[which[i] + 1]; ++k)
            *r++ = k;
    out.inputs = set.inputs.index_select(0, rows.to(set.inputs.device()));
    out.offsets = offsets;
    out.labels = set.labels.index_select(0, cpuIdx.to(set.labels.device()));
    return out;
}

} // namespace synaptic::engine
