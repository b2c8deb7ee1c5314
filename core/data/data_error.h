#pragma once

#include <stdexcept>
#include <string>

namespace synaptic::data {

// Thrown for any problem with input data. The message always names the file
// (or source) and what is wrong with it, so it can be shown to a user as is.
class DataError : public std::runtime_error {
public:
    DataError(const std::string &source, const std::string &problem)
        : std::runtime_error(source + ": " + problem), m_source(source), m_problem(problem) {}

    const std::string &source() const { return m_source; }
    const std::string &problem() const { return m_problem; }

private:
    std::string m_source;
    std::string m_problem;
};

} // namespace synaptic::data
