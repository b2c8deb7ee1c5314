#pragma once

#include <stdexcept>
#include <string>

namespace synaptic::engine {

// A config or flag problem, with the field (JSON path or flag) that is wrong.
// Shared by the training config, the cluster config and the CLIs.
class ConfigError : public std::runtime_error {
public:
    ConfigError(const std::string &where, const std::string &problem)
        : std::runtime_error(where + ": " + problem), m_where(where) {}
    const std::string &where() const { return m_where; }

private:
    std::string m_where;
};

} // namespace synaptic::engine
