#pragma once

// A 1-D int64 tensor's entries as a vector, for QCOMPARE against literals.
#include <ATen/core/Tensor.h>
#include <torch/types.h>

#include <cstdint>
#include <vector>

inline std::vector<std::int64_t> int64Values(const at::Tensor &t) {
    const auto c = t.to(torch::kCPU).contiguous();
    return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}
