#include "node_cli.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>

namespace synaptic::app {

using engine::ConfigError;

std::string nodeUsage() {
    return "usage: synaptic-node train [--config FILE] [--epochs N] [--subset N] [--test-subset N]\n"
           "                           [--batch N] [--lr X] [--lr-schedule cosine|constant]\n"
           "                           [--exit-weight X] [--threads N]\n"
           "                           [--device cpu|cuda|auto] [--seed N] [--data DIR]\n"
           "                           [--eval-every STEPS] [--report FILE]\n"
           "       synaptic-node --version\n"
           "       synaptic-node --help\n";
}

namespace {

template <typename T>
T parseNumber(const std::string &flag, const std::string &text) {
    T value{};
    const char *end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || text.empty())
        throw ConfigError(flag, "expects a number, got '" + text + "'");
    return value;
}

} // namespace

NodeCommand parseNodeCommand(const std::vector<std::string> &args) {
    NodeCommand cmd;
    if (args.empty())
        throw ConfigError("command", "missing (expected train, --version or --help)");
    const std::string &verb = args.front();
    if (verb == "--version" || verb == "version") {
        cmd.kind = NodeCommand::Kind::Version;
        return cmd;
    }
    if (verb == "--help" || verb == "-h" || verb == "help") {
        cmd.kind = NodeCommand::Kind::Help;
        return cmd;
    }
    if (verb != "train")
        throw ConfigError("command", "unknown command '" + verb + "'");
    cmd.kind = NodeCommand::Kind::Train;

    // A --config file is read first so flags override it wherever they stand.
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--config" && i + 1 < args.size())
            cmd.train = engine::loadTrainConfig(args[i + 1], cmd.train);
        else if (args[i].rfind("--config=", 0) == 0)
            cmd.train = engine::loadTrainConfig(args[i].substr(9), cmd.train);
    }

    auto &t = cmd.train;
    const std::map<std::string, std::function<void(const std::string &, const std::string &)>> flags{
        {"--config", [](const std::string &, const std::string &) {}},
        {"--epochs", [&](auto &f, auto &v) { t.epochs = parseNumber<int>(f, v); }},
        {"--subset", [&](auto &f, auto &v) { t.subset = parseNumber<std::size_t>(f, v); }},
        {"--test-subset", [&](auto &f, auto &v) { t.testSubset = parseNumber<std::size_t>(f, v); }},
        {"--batch", [&](auto &f, auto &v) { t.batchSize = parseNumber<int>(f, v); }},
        {"--lr", [&](auto &f, auto &v) { t.learningRate = parseNumber<double>(f, v); }},
        {"--lr-schedule", [&](auto &, auto &v) { t.lrSchedule = v; }},
        {"--exit-weight", [&](auto &f, auto &v) { t.exitWeight = parseNumber<double>(f, v); }},
        {"--threads", [&](auto &f, auto &v) { t.threads = parseNumber<int>(f, v); }},
        {"--device", [&](auto &, auto &v) { t.device = v; }},
        {"--seed", [&](auto &f, auto &v) { t.seed = parseNumber<std::uint64_t>(f, v); }},
        {"--data", [&](auto &, auto &v) { t.dataDir = v; }},
        {"--eval-every", [&](auto &f, auto &v) { t.evalEverySteps = parseNumber<int>(f, v); }},
        {"--report", [&](auto &, auto &v) { cmd.reportPath = v; }},
    };
    for (std::size_t i = 1; i < args.size(); ++i) {
        std::string flag = args[i];
        std::string value;
        bool inlineValue = false;
        if (auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            inlineValue = true;
        }
        auto it = flags.find(flag);
        if (it == flags.end())
            throw ConfigError(flag, "unknown option");
        if (!inlineValue) {
            if (i + 1 >= args.size())
                throw ConfigError(flag, "needs a value");
            value = args[++i];
        }
        it->second(flag, value);
    }
    try {
        engine::validate(t);
    } catch (const ConfigError &e) {
        // validate() names config keys (exit_weight); name the flag instead.
        std::string flag = "--" + e.where();
        std::replace(flag.begin(), flag.end(), '_', '-');
        throw ConfigError(flag, std::string(e.what()).substr(e.where().size() + 2));
    }
    return cmd;
}

} // namespace synaptic::app
