#include "node_cli.h"

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/config_search.h"
#include "core/engine/sim/eval_cadence.h"
#include "core/engine/tasks/task_registry.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <map>

namespace synaptic::app {

using engine::ConfigError;

std::string nodeUsage() {
    return "usage: synaptic-node train [--config FILE] [--epochs N] [--subset N] [--test-subset N]\n"
           "                           [--batch N] [--lr X] [--lr-schedule cosine|constant]\n"
           "                           [--exit-weight X] [--threads N]\n"
           "                           [--device cpu|cuda|auto] [--seed N] [--data DIR]\n"
           "                           [--eval-every STEPS] [--report FILE] [--model FILE]\n"
           "       synaptic-node sim --config FILE [--task fashion-mnist|langid] [--strategy NAME]\n"
           "                         (without --task, the config's \"task\" key; fashion-mnist if none)\n"
           "                         [--compare A,B,...]\n"
           "                         [--steps N | --virtual-seconds S] [--target-accuracy X]\n"
           "                         [--seed N] [--eval-every-samples N] [--regions]\n"
           "                         (evaluates about 20 times over --steps, every 7680 samples\n"
           "                         with --virtual-seconds; 0: every config evaluation.every_seconds)\n"
           "                         [--commands FILE] [--threads N] [--device cpu|cuda|auto]\n"
           "                         [--data DIR] [--report FILE] [--record FILE] [--model FILE]\n"
           "         strategies: synaptic, param_server, allreduce, diloco, gossip, hier_allreduce,\n"
           "                     hier_diloco\n"
           "         --task langid: language ID over Debian's fortune files (--data: the fortune folder);\n"
           "                        with --strategy or --compare, on the training strategies like\n"
           "                        fashion-mnist (no early-exit serving); without them, the hot-update\n"
           "                        scenario (a new language reaches one region; --no-hot-updates: rows\n"
           "                        cross regions only with the center sync), which takes\n"
           "                        --virtual-seconds, --seed, --threads, --data and --report\n"
           "       synaptic-node serve --config FILE [--model FILE | --epochs N [--save-model FILE]]\n"
           "                           [--threshold X] [--edge-threshold EDGE=X ...]\n"
           "                           [--confidence max_softmax|entropy] [--rate R] [--virtual-seconds S]\n"
           "                           [--latency-ms MS] [--validation N] [--no-baseline] [--seed N]\n"
           "                           [--threads N] [--device cpu|cuda|auto] [--data DIR] [--report FILE]\n"
           "         early-exit serving of a trained model (--model: saved by train/sim --model)\n"
           "       synaptic-node info FILE [--json]          what a recording holds; checks every chunk\n"
           "       synaptic-node export FILE [--run N] [--csv DIR] [--trace FILE] [--report FILE]\n"
           "       synaptic-node rerun FILE [--run N] [--threads N]   rerun a recorded run, compare streams\n"
           "       synaptic-node check FILE [--run N]        check every invariant on the recorded history\n"
           "         exit codes: 0 ok, 1 failed or unreadable file, 2 usage, 3 damaged recording\n"
           "                     (read as far as possible), a rerun that differs or an invariant violated\n"
           "       synaptic-node center --config FILE [--listen ADDR] [--steps N] [--eval-every-samples N]\n"
           "                            [--report FILE] [--exit-when-done] [--start-timeout S] LIVE-OPTIONS\n"
           "         the center of a live cluster (synaptic, param_server or diloco); edges join it\n"
           "       synaptic-node edge --center ADDR --name NAME [--listen ADDR] [--advertise ADDR]\n"
           "                          [--join-timeout S] LIVE-OPTIONS\n"
           "         one edge of the config the center runs: region, data and peers come from the center\n"
           "       synaptic-node cluster --config FILE [--steps N] [--eval-every-samples N] [--report FILE]\n"
           "                             [--exit-when-done] [--start-timeout S] LIVE-OPTIONS\n"
           "         a center and every edge of the config as processes on this machine;\n"
           "         prints where they listen; Ctrl+C or SIGTERM stops them all\n"
           "         LIVE-OPTIONS: --token-file FILE (required) and either --tls-cert FILE --tls-key FILE\n"
           "                       --tls-ca FILE [--mtls] [--tls-server-name NAME], or --insecure (loopback\n"
           "                       only); [--no-link-emulation] [--threads N] [--device cpu|cuda|auto]\n"
           "                       [--data DIR] [--state-dir DIR] (edges keep their shards' durable\n"
           "                       state, and their hubs', under DIR/node-N and a restarted edge\n"
           "                       reloads it; required under knobs.hub_merges)\n"
           "       --quiet (any subcommand): no progress bar or progress lines on stderr (results and\n"
           "               errors still print)\n"
           "       synaptic-node --version\n"
           "       synaptic-node --help\n"
           "files:  " + engine::configSearchHelp() + "\n"
           "        (the package installs default_cluster.json and langid_cluster.json in /usr/share/synaptic,\n"
           "        example --commands files in /usr/share/synaptic/examples); --report, --record and\n"
           "        --model write where they are told\n";
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

using FlagTable = std::map<std::string, std::function<void(const std::string &, const std::string &)>>;

// Walks --flag VALUE and --flag=VALUE pairs; `switches` take no value.
void parseFlags(const std::vector<std::string> &args, const FlagTable &flags,
                const std::map<std::string, std::function<void()>> &switches = {}) {
    for (std::size_t i = 1; i < args.size(); ++i) {
        std::string flag = args[i];
        std::string value;
        bool inlineValue = false;
        if (auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            inlineValue = true;
        }
        if (auto sw = switches.find(flag); sw != switches.end() && !inlineValue) {
            sw->second();
            continue;
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
}

std::vector<std::string> splitList(const std::string &flag, const std::string &text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty())
            throw ConfigError(flag, "expects a comma-separated list of strategies, got '" + text + "'");
        if (std::find(engine::kStrategies.begin(), engine::kStrategies.end(), item) == engine::kStrategies.end())
            throw ConfigError(flag, "unknown strategy '" + item +
                                        "' (synaptic, param_server, allreduce, diloco, gossip)");
        out.push_back(item);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

NodeCommand parseSimCommand(const std::vector<std::string> &args) {
    NodeCommand cmd;
    cmd.kind = NodeCommand::Kind::Sim;
    auto &s = cmd.sim;
    bool stepsGiven = false;
    bool evalGiven = false;
    const FlagTable flags{
        {"--config", [&](auto &, auto &v) { s.configPath = v; }},
        {"--strategy", [&](auto &f, auto &v) { s.strategies = splitList(f, v); if (s.strategies.size() != 1) throw ConfigError(f, "takes one strategy; use --compare for several"); }},
        {"--compare", [&](auto &f, auto &v) { s.strategies = splitList(f, v); }},
        {"--steps", [&](auto &f, auto &v) { s.stepsPerEdge = parseNumber<std::uint64_t>(f, v); stepsGiven = true;
                                            if (s.stepsPerEdge == 0) throw ConfigError(f, "must be at least 1"); }},
        {"--virtual-seconds", [&](auto &f, auto &v) { s.virtualSeconds = parseNumber<double>(f, v);
                                            if (!(s.virtualSeconds > 0)) throw ConfigError(f, "must be > 0"); }},
        {"--target-accuracy", [&](auto &f, auto &v) { s.targetAccuracy = parseNumber<double>(f, v);
                                            if (!(s.targetAccuracy > 0 && s.targetAccuracy <= 1)) throw ConfigError(f, "must be in (0, 1]"); }},
        {"--seed", [&](auto &f, auto &v) { s.seed = parseNumber<std::uint64_t>(f, v); }},
        {"--eval-every-samples", [&](auto &f, auto &v) { s.evalEverySamples = parseNumber<std::uint64_t>(f, v);
                                            evalGiven = true; }},
        {"--commands", [&](auto &, auto &v) { s.commandsPath = v; }},
        {"--threads", [&](auto &f, auto &v) { s.threads = parseNumber<int>(f, v);
                                            if (s.threads < 0) throw ConfigError(f, "must be >= 0"); }},
        {"--device", [&](auto &, auto &v) { s.device = v; }},
        {"--data", [&](auto &, auto &v) { s.dataDir = v; }},
        {"--report", [&](auto &, auto &v) { cmd.reportPath = v; }},
        {"--record", [&](auto &, auto &v) { cmd.recordPath = v; }},
        {"--model", [&](auto &, auto &v) { s.modelPath = v; }},
        {"--task", [&](auto &, auto &v) { s.task = engine::TaskRegistry::builtIn().find(v).name; }},
    };
    parseFlags(args, flags, {{"--regions", [&] { s.evaluateRegions = true; }},
                             {"--no-hot-updates", [&] { s.hotUpdates = false; }}});
    if (s.configPath.empty())
        throw ConfigError("--config", "is required for sim (try default_cluster where the package is installed, or resources/default_cluster.json in a checkout)");
    // Without --task the config says what to train (its "task" key).
    const bool taskGiven = !s.task.empty();
    if (!taskGiven) {
        try {
            s.task = engine::loadClusterConfig(s.configPath).task;
        } catch (const ConfigError &) {
            // checkSimRequest names the bad config below, after the flags' own checks.
        }
    }
    // langid without --strategy/--compare: the hot-update scenario; with
    // them, the training strategies on the text task like any other.
    s.hotUpdateScenario = s.task == "langid" && s.strategies.empty();
    if (s.hotUpdateScenario) {
        const std::pair<bool, const char *> unsupported[] = {
            {stepsGiven, "--steps"}, {!s.commandsPath.empty(), "--commands"}, {!cmd.recordPath.empty(), "--record"},
            {!s.modelPath.empty(), "--model"}, {s.evaluateRegions, "--regions"}, {s.device != "cpu", "--device"},
            {evalGiven, "--eval-every-samples"}, {s.targetAccuracy != 0.88, "--target-accuracy"}};
        const std::string why = std::string("by the hot-update scenario (") +
                                (taskGiven ? "--task langid" : "a config whose task is langid") +
                                " without --strategy or --compare)";
        for (const auto &[given, flag] : unsupported)
            if (given)
                throw ConfigError(flag, std::string("is not taken ") + why +
                                            "; give --strategy NAME or --compare to train langid on the strategies");
        engine::checkSimRequest(s);
        return cmd;
    }
    if (!s.hotUpdates)
        throw ConfigError("--no-hot-updates", "applies to the hot-update scenario only (--task langid without "
                                              "--strategy or --compare)");
    if (!s.modelPath.empty() && s.strategies.size() > 1)
        throw ConfigError("--model", "saves one strategy's model; give --strategy NAME, not --compare");
    if (stepsGiven && s.virtualSeconds > 0)
        throw ConfigError("--steps", "give either --steps or --virtual-seconds, not both");
    if (!stepsGiven && !(s.virtualSeconds > 0))
        s.stepsPerEdge = 300;
    engine::checkSimRequest(s); // a bad config or command file is a usage error, found before any data loads
    // Evaluate by samples, as the app does, about 20 times over a step
    // budget, so that every run (and its recording) charts its accuracy; 0
    // asks for the config's virtual-time cadence (evaluation.every_seconds).
    if (!evalGiven) {
        const engine::ClusterConfig config = engine::loadClusterConfig(s.configPath);
        s.evalEverySamples = engine::defaultEvalEverySamples(
            std::uint64_t(config.batchSize) * std::uint64_t(config.edgeCount()), s.stepsPerEdge);
    }
    return cmd;
}

NodeCommand parseServeCommand(const std::vector<std::string> &args) {
    NodeCommand cmd;
    cmd.kind = NodeCommand::Kind::Serve;
    auto &s = cmd.serve;
    const FlagTable flags{
        {"--config", [&](auto &, auto &v) { s.configPath = v; }},
        {"--model", [&](auto &, auto &v) { s.modelPath = v; }},
        {"--save-model", [&](auto &, auto &v) { s.saveModelPath = v; }},
        {"--epochs", [&](auto &f, auto &v) { s.trainEpochs = parseNumber<int>(f, v); }},
        {"--threshold", [&](auto &f, auto &v) { s.threshold = parseNumber<double>(f, v); }},
        {"--edge-threshold", [&](auto &f, auto &v) {
             const auto eq = v.find('=');
             if (eq == std::string::npos || eq == 0)
                 throw ConfigError(f, "expects EDGE=X, got '" + v + "'");
             s.edgeThresholds[v.substr(0, eq)] = parseNumber<double>(f, v.substr(eq + 1));
         }},
        {"--confidence", [&](auto &, auto &v) { s.confidence = v; }},
        {"--rate", [&](auto &f, auto &v) { s.ratePerEdge = parseNumber<double>(f, v); }},
        {"--virtual-seconds", [&](auto &f, auto &v) { s.virtualSeconds = parseNumber<double>(f, v); }},
        {"--latency-ms", [&](auto &f, auto &v) { s.linkLatencyMs = parseNumber<double>(f, v); }},
        {"--validation", [&](auto &f, auto &v) { s.validationImages = parseNumber<std::int64_t>(f, v); }},
        {"--seed", [&](auto &f, auto &v) { s.seed = parseNumber<std::uint64_t>(f, v); }},
        {"--threads", [&](auto &f, auto &v) { s.threads = parseNumber<int>(f, v);
                                            if (s.threads < 0) throw ConfigError(f, "must be >= 0"); }},
        {"--device", [&](auto &, auto &v) { s.device = v; }},
        {"--data", [&](auto &, auto &v) { s.dataDir = v; }},
        {"--report", [&](auto &, auto &v) { cmd.reportPath = v; }},
    };
    parseFlags(args, flags, {{"--no-baseline", [&] { s.centerOnlyBaseline = false; }}});
    if (s.configPath.empty())
        throw ConfigError("--config", "is required for serve (try resources/default_cluster.json)");
    if (!s.modelPath.empty() && !s.saveModelPath.empty())
        throw ConfigError("--save-model", "saves a model trained here; with --model nothing is trained");
    engine::checkServeRequest(s); // flag ranges and the config, before any data loads
    return cmd;
}

// info / export / rerun FILE [flags]
NodeCommand parseRecordingCommand(const std::vector<std::string> &args, NodeCommand::Kind kind) {
    NodeCommand cmd;
    cmd.kind = kind;
    const std::string &verb = args.front();
    if (args.size() < 2 || args[1].rfind("--", 0) == 0)
        throw ConfigError(verb, "needs a recording file: synaptic-node " + verb + " FILE");
    cmd.recordingPath = args[1];
    std::vector<std::string> rest{verb};
    rest.insert(rest.end(), args.begin() + 2, args.end());
    FlagTable flags;
    std::map<std::string, std::function<void()>> switches;
    if (kind == NodeCommand::Kind::Info)
        switches["--json"] = [&] { cmd.json = true; };
    if (kind != NodeCommand::Kind::Info)
        flags["--run"] = [&](auto &f, auto &v) { cmd.run = parseNumber<int>(f, v); };
    if (kind == NodeCommand::Kind::Export) {
        flags["--csv"] = [&](auto &, auto &v) { cmd.csvDir = v; };
        flags["--trace"] = [&](auto &, auto &v) { cmd.tracePath = v; };
        flags["--report"] = [&](auto &, auto &v) { cmd.reportPath = v; };
    }
    if (kind == NodeCommand::Kind::Rerun)
        flags["--threads"] = [&](auto &f, auto &v) { cmd.sim.threads = parseNumber<int>(f, v); };
    parseFlags(rest, flags, switches);
    if (kind == NodeCommand::Kind::Export && cmd.csvDir.empty() && cmd.tracePath.empty() && cmd.reportPath.empty())
        throw ConfigError("export", "nothing to write: give --csv DIR, --trace FILE and/or --report FILE");
    return cmd;
}

// The flags every live process takes (security, link emulation, compute).
void addProcessFlags(FlagTable &flags, std::map<std::string, std::function<void()>> &switches,
                     rpc::ProcessOptions &p) {
    auto &s = p.security;
    flags["--token-file"] = [&](auto &, auto &v) { s.tokenFile = v; };
    flags["--tls-cert"] = [&](auto &, auto &v) { s.certFile = v; };
    flags["--tls-key"] = [&](auto &, auto &v) { s.keyFile = v; };
    flags["--tls-ca"] = [&](auto &, auto &v) { s.caFile = v; };
    flags["--tls-server-name"] = [&](auto &, auto &v) { s.serverNameOverride = v; };
    flags["--threads"] = [&](auto &f, auto &v) {
        p.threads = parseNumber<int>(f, v);
        if (p.threads < 0)
            throw ConfigError(f, "must be >= 0");
    };
    flags["--device"] = [&](auto &, auto &v) { p.device = v; };
    flags["--data"] = [&](auto &, auto &v) { p.dataDir = v; };
    flags["--state-dir"] = [&](auto &f, auto &v) {
        if (v.empty())
            throw ConfigError(f, "needs a directory");
        p.stateDir = v;
    };
    switches["--mtls"] = [&] { s.mutualTls = true; };
    switches["--insecure"] = [&] { s.insecure = true; };
    switches["--no-link-emulation"] = [&] { p.emulateLinks = false; };
}

void checkProcessFlags(const rpc::ProcessOptions &p) {
    const auto &s = p.security;
    if (s.tokenFile.empty())
        throw ConfigError("--token-file", "is required: every call carries a bearer token (make one with "
                                          "'openssl rand -hex 32 > token')");
    if (s.insecure && (!s.certFile.empty() || !s.keyFile.empty() || !s.caFile.empty() || s.mutualTls))
        throw ConfigError("--insecure", "is plaintext: leave out --tls-cert, --tls-key, --tls-ca and --mtls");
    if (!s.insecure && s.caFile.empty())
        throw ConfigError("--tls-ca", "is required with TLS (or run on loopback with --insecure)");
}

// center / cluster: the center's flags (cluster passes the same to its edges).
NodeCommand parseCenterCommand(const std::vector<std::string> &args, NodeCommand::Kind kind) {
    NodeCommand cmd;
    cmd.kind = kind;
    auto &c = cmd.center;
    FlagTable flags{
        {"--config", [&](auto &, auto &v) { c.configPath = v; }},
        {"--steps", [&](auto &f, auto &v) { c.stepsPerEdge = parseNumber<std::uint64_t>(f, v);
                                            if (c.stepsPerEdge == 0) throw ConfigError(f, "must be at least 1"); }},
        {"--eval-every-samples", [&](auto &f, auto &v) { c.evalEverySamples = parseNumber<std::uint64_t>(f, v); }},
        {"--report", [&](auto &, auto &v) { c.reportPath = v; }},
        {"--start-timeout", [&](auto &f, auto &v) { c.startTimeoutSeconds = parseNumber<double>(f, v);
                                                    if (!(c.startTimeoutSeconds >= 0)) throw ConfigError(f, "must be >= 0"); }},
    };
    if (kind == NodeCommand::Kind::Center)
        flags["--listen"] = [&](auto &, auto &v) { c.listen = v; };
    std::map<std::string, std::function<void()>> switches{{"--exit-when-done", [&] { c.exitWhenDone = true; }}};
    addProcessFlags(flags, switches, c.process);
    parseFlags(args, flags, switches);
    if (c.configPath.empty())
        throw ConfigError("--config", "is required (try default_cluster where the package is installed, or resources/default_cluster.json in a checkout)");
    checkProcessFlags(c.process);
    if (kind == NodeCommand::Kind::Center && !c.process.stateDir.empty())
        throw ConfigError("--state-dir", "is for edges (edge, or cluster, which passes it to them): a live center "
                                         "keeps no state file");
    if (std::error_code ec; kind == NodeCommand::Kind::Cluster && !c.process.stateDir.empty() &&
                            std::filesystem::exists(c.process.stateDir, ec) &&
                            !std::filesystem::is_empty(c.process.stateDir, ec))
        throw ConfigError("--state-dir", c.process.stateDir + " is not empty: a new run starts from no state (its "
                                         "edges would take another run's contributions for their own); use a new "
                                         "directory");
    if (c.exitWhenDone && c.stepsPerEdge == 0)
        throw ConfigError("--exit-when-done", "needs --steps N: without a step budget the run never finishes");
    const auto config = engine::loadClusterConfig(c.configPath);
    if (config.strategy != "synaptic" && config.strategy != "param_server" && config.strategy != "diloco")
        throw ConfigError(c.configPath, "strategy: \"" + config.strategy +
                                            "\" runs only in the simulator (live: synaptic, param_server, diloco)");
    if (kind == NodeCommand::Kind::Cluster && config.knobs.hubMerges && c.process.stateDir.empty())
        throw ConfigError("--state-dir", "is required under knobs.hub_merges: the edges that host hubs keep "
                                         "their merges in it (a hub restarted without them would name its "
                                         "versions again)");
    cmd.edge.process = c.process;
    return cmd;
}

NodeCommand parseEdgeCommand(const std::vector<std::string> &args) {
    NodeCommand cmd;
    cmd.kind = NodeCommand::Kind::Edge;
    auto &e = cmd.edge;
    FlagTable flags{
        {"--center", [&](auto &, auto &v) { e.center = v; }},
        {"--name", [&](auto &, auto &v) { e.name = v; }},
        {"--listen", [&](auto &, auto &v) { e.listen = v; }},
        {"--advertise", [&](auto &, auto &v) { e.advertise = v; }},
        {"--join-timeout", [&](auto &f, auto &v) { e.joinTimeoutSeconds = parseNumber<double>(f, v);
                                                  if (!(e.joinTimeoutSeconds > 0)) throw ConfigError(f, "must be > 0"); }},
    };
    std::map<std::string, std::function<void()>> switches;
    addProcessFlags(flags, switches, e.process);
    parseFlags(args, flags, switches);
    if (e.center.empty())
        throw ConfigError("--center", "is required: the address of the center to join");
    if (e.name.empty())
        throw ConfigError("--name", "is required: this edge's name in the center's config");
    checkProcessFlags(e.process);
    return cmd;
}

// Everything but --quiet: the subcommand and its own flags.
NodeCommand parseVerb(const std::vector<std::string> &args) {
    NodeCommand cmd;
    if (args.empty())
        throw ConfigError("command", "missing (expected train, sim, serve, info, export, rerun, check, center, edge, cluster, "
                                     "--version or --help)");
    const std::string &verb = args.front();
    if (verb == "--version" || verb == "version") {
        cmd.kind = NodeCommand::Kind::Version;
        return cmd;
    }
    if (verb == "--help" || verb == "-h" || verb == "help") {
        cmd.kind = NodeCommand::Kind::Help;
        return cmd;
    }
    if (verb == "sim")
        return parseSimCommand(args);
    if (verb == "serve")
        return parseServeCommand(args);
    if (verb == "info")
        return parseRecordingCommand(args, NodeCommand::Kind::Info);
    if (verb == "export")
        return parseRecordingCommand(args, NodeCommand::Kind::Export);
    if (verb == "rerun")
        return parseRecordingCommand(args, NodeCommand::Kind::Rerun);
    if (verb == "check")
        return parseRecordingCommand(args, NodeCommand::Kind::Check);
    if (verb == "center")
        return parseCenterCommand(args, NodeCommand::Kind::Center);
    if (verb == "cluster")
        return parseCenterCommand(args, NodeCommand::Kind::Cluster);
    if (verb == "edge")
        return parseEdgeCommand(args);
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
    const FlagTable flags{
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
        {"--model", [&](auto &, auto &v) { t.modelPath = v; }},
    };
    parseFlags(args, flags);
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

} // namespace

engine::ProgressStyle progressStyle(const NodeCommand &cmd) {
    engine::ProgressStyle style;
    style.quiet = cmd.quiet;
    return style;
}

NodeCommand parseNodeCommand(const std::vector<std::string> &args) {
    // --quiet is taken by every subcommand, so it is read here, once.
    std::vector<std::string> rest;
    bool quiet = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--quiet") // before or after the subcommand
            quiet = true;
        else
            rest.push_back(args[i]);
    }
    NodeCommand cmd = parseVerb(rest);
    cmd.quiet = quiet;
    return cmd;
}

} // namespace synaptic::app
