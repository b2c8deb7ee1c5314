#include "gui_options.h"

#include "core/engine/embeddings/hot_update_options.h"
#include "core/engine/sim/config_search.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

#include <limits>

namespace synaptic::app {

namespace {
// --layout NAME: a bare name that is not a file here is looked up where View
// → Save layout puts layouts (~/.config/synaptic/layouts), ".layout" added
// when it has no extension (issue 17 §2). Anything else is read as given.
QString layoutPath(const QString &given) {
    if (given.isEmpty() || given.contains('/') || QFileInfo::exists(given))
        return given;
    const QString folder = QString::fromStdString(engine::userConfigDir()) + "/layouts/";
    for (const QString &name : {given, given + ".layout"})
        if (QFileInfo::exists(folder + name))
            return folder + name;
    return given; // not found anywhere: loading it names the file
}
} // namespace

void addGuiOptions(QCommandLineParser &p) {
    p.addOptions({
        {"config", "Cluster config JSON (default: the shipped 3 x 8 cluster); with --train, a training config.",
         "FILE"},
        {"strategy", "synaptic, param_server, allreduce, diloco, gossip, hier_allreduce or hier_diloco (default: the config's).", "NAME"},
        {"steps", "Training steps per edge before the cluster stops (default: until stopped).", "N"},
        {"train", "Open the single-model training window instead of the control plane."},
        {"task", "fashion-mnist (the control plane) or langid (the language-ID model's embedding hot "
                 "updates on the cluster, with --data the fortune folder); default: the config's \"task\".", "NAME"},
        {"layout", "Dock arrangement saved with View > Save layout: a file, or the name of one saved in the layouts "
                   "folder (see Files above).", "FILE"},
        {"commands", "JSON list of timed commands to apply (see README), e.g. for scripted screenshots.", "FILE"},
        {"epochs", "Epochs to train (default 5).", "N"},
        {"subset", "Train on the first N samples only.", "N"},
        {"test-subset", "Evaluate on the first N test samples only.", "N"},
        {"batch", "Mini-batch size (default 64).", "N"},
        {"lr", "Adam learning rate (default 0.003).", "X"},
        {"threads", "Intra-op threads of LibTorch and OpenBLAS (default: the CPUs this process may use).", "N"},
        {"device", "cpu, cuda or auto (default auto).", "DEVICE"},
        {"seed", "Random seed (default 1).", "N"},
        {"data", "Fashion-MNIST directory (default /usr/share/datasets/fashion-mnist); with --task langid, the "
                 "fortune files' folder (default /usr/share/games/fortunes).", "DIR"},
        {"eval-every", "Evaluate every N steps as well as each epoch (GUI default 200).", "N"},
        {"no-autostart", "Open the window without starting training."},
        {"screenshot", "Save a PNG of the window after --after seconds, then exit.", "FILE"},
        {"after", "Seconds before --screenshot (default 5).", "SECONDS"},
        {"show", "Raise this dock (object name, e.g. servingDock, inferenceChartDock); repeatable.", "DOCK"},
        {"screenshot-dock", "With --screenshot: picture only this dock (e.g. shardMapDock), floated at 960 x 720.",
         "DOCK"},
        {"record", "Record the session to FILE (replay it with --replay or synaptic-node info/export).", "FILE"},
        {"replay", "Replay a recording instead of running a cluster.", "FILE"},
        {"run", "With --replay: which run of the recording (default 0).", "N"},
        {"seek", "With --replay: start at this virtual second.", "SECONDS"},
        {"play", "With --replay: start playing at once."},
        {"connect", "Show and drive the live cluster whose center listens at ADDR (host:port; see synaptic-node "
                    "cluster) instead of running one.", "ADDR"},
        {"token-file", "With --connect: the cluster's bearer token (required).", "FILE"},
        {"tls-ca", "With --connect: CA that signed the center's certificate (required for TLS).", "FILE"},
        {"tls-cert", "With --connect: this client's certificate, for centers that require mutual TLS.", "FILE"},
        {"tls-key", "With --connect: the key of --tls-cert.", "FILE"},
        {"tls-server-name", "With --connect: the name the center's certificate carries, if not the address's.",
         "NAME"},
        {"insecure", "With --connect: plaintext to a center on this machine (loopback only)."},
    });
}

namespace {

// Range-checked before any narrowing cast, so "-5" or "1e12" can't wrap.
long long number(const QCommandLineParser &p, const QString &name, long long min, long long max) {
    bool ok = false;
    const long long v = p.value(name).toLongLong(&ok);
    const std::string flag = "--" + name.toStdString();
    if (!ok)
        throw engine::ConfigError(flag, "expects an integer, got '" + p.value(name).toStdString() + "'");
    if (v < min || v > max)
        throw engine::ConfigError(flag, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                                            ", got " + std::to_string(v));
    return v;
}

double real(const QCommandLineParser &p, const QString &name, double min, double max) {
    bool ok = false;
    const double v = p.value(name).toDouble(&ok);
    const std::string flag = "--" + name.toStdString();
    if (!ok || !(v >= min && v <= max))
        throw engine::ConfigError(flag, "expects a number between " + std::to_string(min) + " and " +
                                            std::to_string(max) + ", got '" + p.value(name).toStdString() + "'");
    return v;
}

constexpr long long kMaxCount = 1'000'000'000;

} // namespace

namespace {
engine::ClusterConfig clusterConfig(const QCommandLineParser &p, QString &name) {
    if (p.isSet("config")) {
        name = QFileInfo(p.value("config")).fileName();
        return engine::loadClusterConfig(p.value("config").toStdString());
    }
    QFile shipped(":/default_cluster.json");
    if (!shipped.open(QIODevice::ReadOnly))
        throw engine::ConfigError("default_cluster.json", "missing from the application's resources");
    name = "default_cluster.json";
    return engine::parseClusterConfig(shipped.readAll().toStdString(), "default_cluster.json");
}
} // namespace

namespace {
constexpr const char *kConnectFlags[] = {"token-file", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "insecure"};

// --connect and its security flags, checked as synaptic-node checks them.
void readConnectOptions(const QCommandLineParser &p, GuiOptions &o) {
    o.connect = true;
    o.remote.address = p.value("connect").trimmed().toStdString();
    if (o.remote.address.empty())
        throw engine::ConfigError("--connect", "expects the center's address, host:port");
    for (const char *flag : {"train", "task", "replay", "run", "seek", "play", "config", "strategy", "seed", "steps", "commands",
                             "data", "epochs", "subset", "test-subset", "batch", "lr", "threads", "device", "eval-every"})
        if (p.isSet(flag))
            throw engine::ConfigError(std::string("--") + flag,
                                      "cannot be used with --connect (the cluster brings its own config)");
    auto &s = o.remote.security;
    s.tokenFile = p.value("token-file").toStdString();
    s.caFile = p.value("tls-ca").toStdString();
    s.certFile = p.value("tls-cert").toStdString();
    s.keyFile = p.value("tls-key").toStdString();
    s.serverNameOverride = p.value("tls-server-name").toStdString();
    s.insecure = p.isSet("insecure");
    if (s.tokenFile.empty())
        throw engine::ConfigError("--token-file", "is required with --connect: every call carries the cluster's "
                                                  "bearer token");
    if (s.insecure && (!s.caFile.empty() || !s.certFile.empty() || !s.keyFile.empty()))
        throw engine::ConfigError("--insecure", "is plaintext: leave out --tls-ca, --tls-cert and --tls-key");
    if (!s.insecure && s.caFile.empty())
        throw engine::ConfigError("--tls-ca", "is required with TLS (or, to a center on this machine, --insecure)");
    if (s.certFile.empty() != s.keyFile.empty())
        throw engine::ConfigError("--tls-cert", "and --tls-key go together: give both or neither");
}
} // namespace

GuiOptions readGuiOptions(const QCommandLineParser &p) {
    GuiOptions o;
    o.trainMode = p.isSet("train");
    o.autostart = !p.isSet("no-autostart");
    o.screenshotPath = p.value("screenshot");
    o.showDocks = p.values("show");
    o.screenshotDock = p.value("screenshot-dock");
    if (p.isSet("after")) o.screenshotAfterSeconds = real(p, "after", 0.0, 86400.0);
    o.recordPath = p.value("record");
    o.replayPath = p.value("replay");
    if (p.isSet("run")) o.replayRun = int(number(p, "run", 0, 1 << 20));
    if (p.isSet("seek")) o.replaySeek = real(p, "seek", 0.0, 1e12);
    o.replayPlay = p.isSet("play");
    if (p.isSet("connect")) {
        readConnectOptions(p, o);
        o.layoutPath = layoutPath(p.value("layout"));
        return o;
    }
    for (const char *flag : kConnectFlags)
        if (p.isSet(flag))
            throw engine::ConfigError(std::string("--") + flag, "is a --connect flag: use it with --connect ADDR");
    if (o.replayPath.isEmpty()) {
        for (const char *flag : {"run", "seek", "play"})
            if (p.isSet(flag))
                throw engine::ConfigError(std::string("--") + flag, "is a replay flag: use it with --replay FILE");
    } else {
        for (const char *flag : {"train", "task", "record", "commands", "steps", "config", "strategy", "seed"})
            if (p.isSet(flag))
                throw engine::ConfigError(std::string("--") + flag, "cannot be used with --replay (a recording "
                                                                   "brings its own config and commands)");
        return o;
    }
    if (o.trainMode && !o.recordPath.isEmpty())
        throw engine::ConfigError("--record", "records a cluster session; --train has nothing to record");
    if (!o.trainMode) {
        for (const char *flag : {"epochs", "subset", "test-subset", "batch", "lr", "eval-every"})
            if (p.isSet(flag))
                throw engine::ConfigError(std::string("--") + flag, "is a training flag: use it with --train");
        o.cluster = clusterConfig(p, o.clusterName);
        const QString configFortunes = QString::fromStdString(engine::configFortuneDir(o.cluster)); // before --task
        if (p.isSet("task")) {
            const QString task = p.value("task");
            if (std::find(engine::kTasks.begin(), engine::kTasks.end(), task.toStdString()) == engine::kTasks.end())
                throw engine::ConfigError("--task", "unknown task '" + task.toStdString() +
                                                        "' (fashion-mnist, langid)");
            o.langIdTask = task == "langid";
            o.cluster.task = task.toStdString(); // --task wins over the config's "task"
        } else {
            o.langIdTask = o.cluster.task == "langid"; // the config chooses
        }
        if (o.langIdTask) {
            for (const char *flag : {"strategy", "steps", "commands", "record", "layout", "device", "threads"})
                if (p.isSet(flag))
                    throw engine::ConfigError(std::string("--") + flag,
                                              "is not a flag of the langid task (its scenario takes --config, "
                                              "--data and --seed, and runs on the CPU)");
            if (p.isSet("seed")) o.cluster.seed = std::uint64_t(number(p, "seed", 0, std::numeric_limits<long long>::max()));
            // --data, else the config's fortune folder, else Debian's.
            o.fortuneDir = p.isSet("data") ? p.value("data") : configFortunes;
            return o;
        }
        if (p.isSet("strategy")) {
            const std::string s = p.value("strategy").toStdString();
            if (std::find(engine::kStrategies.begin(), engine::kStrategies.end(), s) == engine::kStrategies.end())
                throw engine::ConfigError("--strategy", "unknown strategy '" + s +
                                                            "' (synaptic, param_server, allreduce, diloco, gossip, "
                                                            "hier_allreduce, hier_diloco)");
            o.cluster.strategy = s;
        }
        if (p.isSet("seed")) o.cluster.seed = std::uint64_t(number(p, "seed", 0, std::numeric_limits<long long>::max()));
        if (p.isSet("data")) o.cluster.dataDir = p.value("data").toStdString();
        if (p.isSet("steps")) o.stepsPerEdge = std::uint64_t(number(p, "steps", 1, kMaxCount));
        o.layoutPath = layoutPath(p.value("layout"));
        if (p.isSet("commands")) {
            QFile f(p.value("commands"));
            if (!f.open(QIODevice::ReadOnly))
                throw engine::ConfigError(p.value("commands").toStdString(), "cannot open commands file");
            o.commands = engine::parseCommands(f.readAll().toStdString(), p.value("commands").toStdString(), o.cluster);
        }
        return o;
    }
    for (const char *flag : {"strategy", "steps", "commands", "layout", "task"})
        if (p.isSet(flag))
            throw engine::ConfigError(std::string("--") + flag, "is a cluster flag: not with --train");
    // A live chart wants accuracy points more often than once per epoch.
    o.train.evalEverySteps = 200;
    if (p.isSet("config"))
        o.train = engine::loadTrainConfig(p.value("config").toStdString(), o.train);
    if (p.isSet("epochs")) o.train.epochs = int(number(p, "epochs", 1, 10000));
    if (p.isSet("subset")) o.train.subset = std::size_t(number(p, "subset", 0, kMaxCount));
    if (p.isSet("test-subset")) o.train.testSubset = std::size_t(number(p, "test-subset", 0, kMaxCount));
    if (p.isSet("batch")) o.train.batchSize = int(number(p, "batch", 1, 65536));
    if (p.isSet("lr")) o.train.learningRate = real(p, "lr", 1e-9, 10.0);
    if (p.isSet("threads")) o.train.threads = int(number(p, "threads", 0, 1024));
    if (p.isSet("device")) o.train.device = p.value("device").toStdString();
    if (p.isSet("seed")) o.train.seed = std::uint64_t(number(p, "seed", 0, std::numeric_limits<long long>::max()));
    if (p.isSet("data")) o.train.dataDir = p.value("data").toStdString();
    if (p.isSet("eval-every")) o.train.evalEverySteps = int(number(p, "eval-every", 0, kMaxCount));
    engine::validate(o.train);
    return o;
}

} // namespace synaptic::app
