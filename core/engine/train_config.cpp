#include "train_config.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <limits>
#include <type_traits>

namespace synaptic::engine {

using nlohmann::json;

void validate(const TrainConfig &c) {
    if (c.epochs < 1 || c.epochs > 10000)
        throw ConfigError("epochs", "must be between 1 and 10000, got " + std::to_string(c.epochs));
    if (c.batchSize < 1 || c.batchSize > 65536)
        throw ConfigError("batch", "must be between 1 and 65536, got " + std::to_string(c.batchSize));
    if (!(c.learningRate > 0.0) || c.learningRate > 10.0)
        throw ConfigError("lr", "must be > 0 and <= 10");
    if (!(c.exitWeight >= 0.0) || c.exitWeight > 100.0)
        throw ConfigError("exit_weight", "must be between 0 and 100");
    if (c.threads < 0 || c.threads > 1024)
        throw ConfigError("threads", "must be between 0 (auto) and 1024, got " + std::to_string(c.threads));
    if (c.progressEverySteps < 1)
        throw ConfigError("progress_every", "must be at least 1");
    if (c.evalEverySteps < 0)
        throw ConfigError("eval_every", "must be 0 (per epoch) or positive");
    if (c.lrSchedule != "cosine" && c.lrSchedule != "constant")
        throw ConfigError("lr_schedule", "must be \"cosine\" or \"constant\", got \"" + c.lrSchedule + "\"");
    const bool cudaOrdinal = c.device.size() > 5 && c.device.size() <= 8 && c.device.rfind("cuda:", 0) == 0 &&
                             c.device.find_first_not_of("0123456789", 5) == std::string::npos;
    if (c.device != "cpu" && c.device != "cuda" && c.device != "auto" && !cudaOrdinal)
        throw ConfigError("device", "unknown device '" + c.device + "' (expected cpu, cuda, cuda:N or auto)");
}

namespace {

template <typename T>
T read(const json &obj, const char *key, const std::string &where, T fallback) {
    auto it = obj.find(key);
    if (it == obj.end())
        return fallback;
    const std::string field = where + "." + key;
    // nlohmann converts 3.7 to 3 and -5 to a huge unsigned without a word;
    // a config with either is a mistake the user should hear about.
    if constexpr (std::is_integral_v<T>) {
        if (!it->is_number_integer())
            throw ConfigError(field, "must be an integer, got " + it->dump());
        if (it->is_number_unsigned()) {
            if (it->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<T>::max()))
                throw ConfigError(field, "is too large, got " + it->dump());
        } else {
            const long long v = it->get<long long>();
            if (std::is_unsigned_v<T> && v < 0)
                throw ConfigError(field, "must not be negative, got " + it->dump());
            if (!std::is_unsigned_v<T> && (v < (long long)std::numeric_limits<T>::min() ||
                                           v > (long long)std::numeric_limits<T>::max()))
                throw ConfigError(field, "is out of range, got " + it->dump());
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!it->is_number())
            throw ConfigError(field, "must be a number, got " + it->dump());
    } else {
        if (!it->is_string())
            throw ConfigError(field, "must be a string, got " + it->dump());
    }
    try {
        return it->get<T>();
    } catch (const json::exception &) {
        throw ConfigError(field, "has the wrong type (" + std::string(it->type_name()) + ")");
    }
}

void rejectUnknown(const json &obj, const std::string &where, const std::set<std::string> &known) {
    for (auto it = obj.begin(); it != obj.end(); ++it)
        if (!known.count(it.key()))
            throw ConfigError(where.empty() ? it.key() : where + "." + it.key(), "unknown key");
}

} // namespace

TrainConfig loadTrainConfig(const std::string &path, TrainConfig c) {
    std::ifstream in(path);
    if (!in)
        throw ConfigError(path, "cannot open config file");
    json root;
    try {
        root = json::parse(in);
    } catch (const json::parse_error &e) {
        throw ConfigError(path, std::string("not valid JSON (") + e.what() + ")");
    }
    try {
        if (!root.is_object())
            throw ConfigError("(top level)", "must be a JSON object");
        rejectUnknown(root, "", {"training", "data"});
        if (root.contains("data")) {
            const json &d = root["data"];
            if (!d.is_object())
                throw ConfigError("data", "must be an object");
            rejectUnknown(d, "data", {"dir"});
            c.dataDir = read<std::string>(d, "dir", "data", c.dataDir);
        }
        if (root.contains("training")) {
            const json &t = root["training"];
            if (!t.is_object())
                throw ConfigError("training", "must be an object");
            rejectUnknown(t, "training",
                          {"epochs", "subset", "test_subset", "batch", "lr", "lr_schedule", "exit_weight", "threads", "device",
                           "seed", "progress_every", "eval_every"});
            c.epochs = read<int>(t, "epochs", "training", c.epochs);
            c.subset = read<std::size_t>(t, "subset", "training", c.subset);
            c.testSubset = read<std::size_t>(t, "test_subset", "training", c.testSubset);
            c.batchSize = read<int>(t, "batch", "training", c.batchSize);
            c.learningRate = read<double>(t, "lr", "training", c.learningRate);
            c.lrSchedule = read<std::string>(t, "lr_schedule", "training", c.lrSchedule);
            c.exitWeight = read<double>(t, "exit_weight", "training", c.exitWeight);
            c.threads = read<int>(t, "threads", "training", c.threads);
            c.device = read<std::string>(t, "device", "training", c.device);
            c.seed = read<std::uint64_t>(t, "seed", "training", c.seed);
            c.progressEverySteps = read<int>(t, "progress_every", "training", c.progressEverySteps);
            c.evalEverySteps = read<int>(t, "eval_every", "training", c.evalEverySteps);
        }
        validate(c);
    } catch (const ConfigError &e) {
        // Prefix the file so the user knows which config; the message already
        // names the field.
        throw ConfigError(path, e.what());
    }
    return c;
}

} // namespace synaptic::engine
