#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::engine {

// What the shard planner needs to know about one shardable layer, without
// LibTorch: its output rows (conv output channels, linear output neurons or
// embedding table rows) and how many parameters ride with each row (the
// weight row, the bias entry, and per-channel tensors such as batch-norm's
// weight and bias). An embedding layer's shards are row ranges of its table,
// shipped as sparse row deltas (issue 16).
struct LayerLayout {
    enum class Kind { Conv, Linear, Embedding };
    std::string name;           // module name, e.g. "conv2", "fc1"
    Kind kind = Kind::Linear;
    std::int64_t rows = 0;
    std::int64_t paramsPerRow = 0;
    std::vector<std::string> tensors; // parameter names that follow the rows

    std::int64_t parameterCount() const { return rows * paramsPerRow; }
};

} // namespace synaptic::engine
