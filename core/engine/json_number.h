#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace synaptic::engine {

// JSON has no NaN or infinity: a report writes null for a figure that does
// not exist (a ratio of nothing, an accuracy with no early exit).
inline nlohmann::json finiteOrNull(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// Null for a figure never measured (a target the run never reached).
inline nlohmann::json nullable(const std::optional<double> &v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

} // namespace synaptic::engine
