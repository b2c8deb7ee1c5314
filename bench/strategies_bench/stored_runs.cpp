#include "stored_runs.h"

#include <fstream>
#include <iomanip>
#include <map>
#include <type_traits>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace synaptic::bench {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string &path, const std::string &what) {
    throw std::runtime_error(path + ": " + what);
}

const json &field(const std::string &path, const json &object, const std::string &at, const char *name) {
    if (!object.is_object() || !object.contains(name))
        fail(path, at + "." + name + " is missing");
    return object.at(name);
}

double number(const std::string &path, const json &object, const std::string &at, const char *name) {
    const auto &v = field(path, object, at, name);
    if (!v.is_number())
        fail(path, at + "." + name + " is not a number");
    return v.get<double>();
}

// Seeds, steps and byte counts: whole and not negative.
std::uint64_t count(const std::string &path, const json &object, const std::string &at, const char *name) {
    const auto &v = field(path, object, at, name);
    if (!v.is_number_unsigned())
        fail(path, at + "." + name + " is not a whole number >= 0");
    return v.get<std::uint64_t>();
}

std::string text(const std::string &path, const json &object, const std::string &at, const char *name) {
    const auto &v = field(path, object, at, name);
    if (!v.is_string())
        fail(path, at + "." + name + " is not a string");
    return v.get<std::string>();
}

template <typename T> std::optional<T> nullableNumber(const std::string &path, const json &object, const std::string &at, const char *name) {
    const auto &v = field(path, object, at, name);
    if (v.is_null())
        return std::nullopt;
    if (std::is_integral_v<T> ? !v.is_number_unsigned() : !v.is_number())
        fail(path, at + "." + name + (std::is_integral_v<T> ? " is neither a whole number >= 0 nor null" : " is neither a number nor null"));
    return v.get<T>();
}

json readJson(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, "cannot be read");
    std::stringstream buffer;
    buffer << in.rdbuf();
    try {
        return json::parse(buffer.str());
    } catch (const json::parse_error &e) {
        fail(path, std::string("is not JSON (") + e.what() + ")");
    }
}

template <typename T> void agree(const std::string &path, const char *name, const T &mine, const T &first, const std::string &firstPath) {
    if (!(mine == first)) {
        std::ostringstream s;
        s << std::setprecision(17) << name << " is '" << mine << "', but '" << first << "' in " << firstPath
          << ": runs of different setups are not averaged";
        fail(path, s.str());
    }
}

} // namespace

StoredRuns loadStoredRuns(const std::vector<std::string> &paths) {
    StoredRuns out;
    std::map<std::tuple<std::string, std::string, std::uint64_t>, std::string> seen; // run -> where it was read
    for (std::size_t f = 0; f < paths.size(); ++f) {
        const auto &path = paths[f];
        const json report = readJson(path);
        const std::string scenario = text(path, report, "report", "scenario");
        const std::string config = text(path, report, "report", "config");
        const auto steps = (unsigned long long)count(path, report, "report", "steps_per_edge");
        const double target = number(path, report, "report", "target_accuracy");
        const auto evalEvery = (unsigned long long)count(path, report, "report", "eval_every_samples");
        if (f == 0) {
            out.scenario = scenario;
            out.config = config;
            out.stepsPerEdge = steps;
            out.targetAccuracy = target;
            out.evalEverySamples = evalEvery;
        } else {
            agree(path, "scenario", scenario, out.scenario, paths[0]);
            agree(path, "config", config, out.config, paths[0]);
            agree(path, "steps_per_edge", steps, out.stepsPerEdge, paths[0]);
            agree(path, "target_accuracy", target, out.targetAccuracy, paths[0]);
            agree(path, "eval_every_samples", evalEvery, out.evalEverySamples, paths[0]);
        }
        // One entry per report, in order (null when a report does not say).
        const bool said = report.contains("benchmark") && report["benchmark"].is_object() &&
                          report["benchmark"].contains("command") && report["benchmark"]["command"].is_string();
        out.commands.push_back(said ? report["benchmark"]["command"] : json(nullptr));
        const auto &runs = field(path, report, "report", "runs");
        if (!runs.is_array())
            fail(path, "report.runs is not an array");
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const json &r = runs[i];
            const std::string at = "runs[" + std::to_string(i) + "]";
            BenchRun b;
            b.strategy = text(path, r, at, "strategy");
            b.codec = text(path, r, at, "codec");
            b.scenario = scenario;
            b.seed = count(path, r, at, "seed");
            b.finalAccuracy = number(path, r, at, "final_accuracy");
            b.timeToTarget = nullableNumber<double>(path, r, at, "time_to_target_s");
            b.wanToTarget = nullableNumber<std::uint64_t>(path, r, at, "wan_bytes_to_target");
            b.bytesToCenter = count(path, r, at, "bytes_to_center");
            b.wanBytes = count(path, r, at, "wan_bytes");
            b.totalBytes = count(path, r, at, "total_bytes");
            b.virtualSeconds = number(path, r, at, "virtual_seconds");
            b.wallSeconds = number(path, r, at, "wall_seconds");
            if (!field(path, r, at, "curve").is_array())
                fail(path, at + ".curve is not an array");
            const std::string where = path + " " + at;
            const auto [first, fresh] = seen.emplace(std::tuple{b.strategy, b.codec, b.seed}, where);
            if (!fresh)
                fail(path, at + " repeats " + b.strategy + " at " + b.codec + " seed " + std::to_string(b.seed) +
                               ", already read from " + first->second);
            out.runs.push_back(b);
            out.runsJson.push_back(r);
        }
    }
    return out;
}

} // namespace synaptic::bench
