#pragma once

#include <nlohmann/json.hpp>

#include <cmath>

namespace synaptic::engine {

// JSON has no NaN or infinity: a report writes null for a figure that does
// not exist (a ratio of nothing, a target never reached).
inline nlohmann::json finiteOrNull(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

} // namespace synaptic::engine
