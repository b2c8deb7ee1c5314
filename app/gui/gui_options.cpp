#include "gui_options.h"

#include <QCommandLineParser>

namespace synaptic::app {

void addGuiOptions(QCommandLineParser &p) {
    p.addOptions({
        {"config", "Training config JSON (see README).", "FILE"},
        {"epochs", "Epochs to train (default 5).", "N"},
        {"subset", "Train on the first N samples only.", "N"},
        {"test-subset", "Evaluate on the first N test samples only.", "N"},
        {"batch", "Mini-batch size (default 64).", "N"},
        {"lr", "Adam learning rate (default 0.003).", "X"},
        {"threads", "LibTorch intra-op threads (default: all cores).", "N"},
        {"device", "cpu, cuda or auto (default auto).", "DEVICE"},
        {"seed", "Random seed (default 1).", "N"},
        {"data", "Fashion-MNIST directory (default /usr/share/datasets/fashion-mnist).", "DIR"},
        {"eval-every", "Evaluate every N steps as well as each epoch (GUI default 200).", "N"},
        {"no-autostart", "Open the window without starting training."},
        {"screenshot", "Save a PNG of the window after --after seconds, then exit.", "FILE"},
        {"after", "Seconds before --screenshot (default 5).", "SECONDS"},
    });
}

namespace {

long long number(const QCommandLineParser &p, const QString &name) {
    bool ok = false;
    const long long v = p.value(name).toLongLong(&ok);
    if (!ok)
        throw engine::ConfigError("--" + name.toStdString(), "expects a number, got '" + p.value(name).toStdString() + "'");
    return v;
}

double real(const QCommandLineParser &p, const QString &name) {
    bool ok = false;
    const double v = p.value(name).toDouble(&ok);
    if (!ok)
        throw engine::ConfigError("--" + name.toStdString(), "expects a number, got '" + p.value(name).toStdString() + "'");
    return v;
}

} // namespace

GuiOptions readGuiOptions(const QCommandLineParser &p) {
    GuiOptions o;
    // A live chart wants accuracy points more often than once per epoch.
    o.train.evalEverySteps = 200;
    if (p.isSet("config"))
        o.train = engine::loadTrainConfig(p.value("config").toStdString(), o.train);
    if (p.isSet("epochs")) o.train.epochs = int(number(p, "epochs"));
    if (p.isSet("subset")) o.train.subset = std::size_t(number(p, "subset"));
    if (p.isSet("test-subset")) o.train.testSubset = std::size_t(number(p, "test-subset"));
    if (p.isSet("batch")) o.train.batchSize = int(number(p, "batch"));
    if (p.isSet("lr")) o.train.learningRate = real(p, "lr");
    if (p.isSet("threads")) o.train.threads = int(number(p, "threads"));
    if (p.isSet("device")) o.train.device = p.value("device").toStdString();
    if (p.isSet("seed")) o.train.seed = std::uint64_t(number(p, "seed"));
    if (p.isSet("data")) o.train.dataDir = p.value("data").toStdString();
    if (p.isSet("eval-every")) o.train.evalEverySteps = int(number(p, "eval-every"));
    o.autostart = !p.isSet("no-autostart");
    o.screenshotPath = p.value("screenshot");
    if (p.isSet("after")) o.screenshotAfterSeconds = real(p, "after");
    engine::validate(o.train);
    return o;
}

} // namespace synaptic::app
