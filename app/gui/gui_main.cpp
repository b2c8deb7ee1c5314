// synaptic: the desktop control plane. Wiring only: parse flags, build the
// window, connect it (DESIGN.md §2).
#include "gui_options.h"

#include "core/engine/allocator.h"
#include "core/engine/sim/config_search.h"

#include "ui/control_plane_window.h"
#include "ui/dialogs/missing_dataset.h"
#include "ui/embeddings/hot_update_window.h"
#include "ui/main_window.h"
#include "ui/remote/remote_call.h"
#include "ui/remote/remote_window.h"
#include "ui/replay/recording_opener.h"
#include "ui/replay/replay_controller.h"
#include "synaptic_version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QEventLoop>
#include <QScreen>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace {

// --layout and --record on a control-plane window (embedded or connected);
// false, with the reason on stderr, when either fails.
bool applyLayoutAndRecording(synaptic::ui::ControlPlaneWindow &w, const synaptic::app::GuiOptions &options) {
    QString error;
    if (!options.layoutPath.isEmpty())
        error = w.loadLayout(options.layoutPath);
    if (error.isEmpty() && !options.recordPath.isEmpty())
        error = w.startRecording(options.recordPath);
    if (!error.isEmpty())
        std::fprintf(stderr, "synaptic: error: %s\n", qPrintable(error));
    return error.isEmpty();
}

// Issue 17 §3: the embedded control plane trains on Fashion-MNIST. Without
// its files, name the package and offer the language-ID scenario on the
// fortune files (switching `options` to it); false, with the reason on
// stderr, when the user declines or nothing can run. Runs given
// control-plane options (--screenshot, --commands, --record, --layout,
// --steps, --show) expect the control plane, so they are not asked.
bool offerLangIdWithoutFashionMnist(synaptic::app::GuiOptions &options) {
    if (options.connect || !options.replayPath.isEmpty() || options.langIdTask || options.trainMode)
        return true;
    const auto files = synaptic::ui::findFashionMnist(options.cluster.dataDir);
    if (files.present())
        return true;
    const bool scripted = !options.screenshotPath.isEmpty() || !options.commands.empty() ||
                          !options.recordPath.isEmpty() || !options.layoutPath.isEmpty() ||
                          options.stepsPerEdge > 0 || !options.showDocks.isEmpty() ||
                          !options.screenshotDock.isEmpty();
    if (scripted) {
        std::fprintf(stderr, "synaptic: error: %s\nRuns given control-plane options are not asked; "
                             "synaptic --task langid runs the language-ID scenario.\n",
                     qPrintable(synaptic::ui::missingFashionMnistError(files)));
        return false;
    }
    const auto fortunes = synaptic::data::fortuneAvailability(synaptic::data::resolveFortuneDir({}));
    if (synaptic::ui::askAboutMissingFashionMnist(nullptr, files, fortunes) == synaptic::ui::MissingDataChoice::Quit) {
        std::fprintf(stderr, "synaptic: error: %s\n", qPrintable(synaptic::ui::missingFashionMnistError(files)));
        return false;
    }
    options.langIdTask = true;
    options.cluster.task = "langid";
    options.cluster.dataDir.clear(); // it named the missing Fashion-MNIST folder
    options.fortuneDir.clear();      // Debian's fortune folder
    return true;
}

} // namespace

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Synaptic");
    QApplication::setApplicationName("Synaptic");
    QApplication::setApplicationVersion(SYNAPTIC_VERSION);

    QCommandLineParser parser;
    // Where things are, as this environment sets them (issue 17 §2).
    parser.setApplicationDescription(
        QString("Synaptic control plane: runs a simulated edge cluster live, or with --connect "
                "shows and drives a live cluster of synaptic-node processes (or, with --train, "
                "trains one model and plots it).\n\nFiles: %1; layouts are saved under %2/layouts, "
                "settings in %3, recordings under %4.")
            .arg(QString::fromStdString(synaptic::engine::configSearchHelp()),
                 QString::fromStdString(synaptic::engine::userConfigDir()),
                 QSettings().fileName(),
                 synaptic::ui::ControlPlaneWindow::recordingsFolder()));
    parser.addHelpOption();
    parser.addVersionOption();
    synaptic::app::addGuiOptions(parser);
    parser.process(app);

    synaptic::app::GuiOptions options;
    try {
        options = synaptic::app::readGuiOptions(parser);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "synaptic: error: %s\n\n%s", e.what(), qPrintable(parser.helpText()));
        return 2;
    }

    if (!offerLangIdWithoutFashionMnist(options))
        return 1;

    std::unique_ptr<QMainWindow> window;
    if (options.connect) {
        // The window is built from the cluster's config, so ask the center
        // for it first: one Describe with a deadline, before any window
        // exists (nothing to freeze yet).
        const auto described = synaptic::ui::describeCluster(options.remote, std::chrono::seconds(10));
        if (!described.ok) {
            std::fprintf(stderr, "synaptic: error: %s\n", described.error.c_str());
            return 1;
        }
        auto *w = synaptic::ui::remoteWindow(options.remote, described.config);
        window.reset(w);
        if (!applyLayoutAndRecording(*w, options))
            return 2;
        if (options.autostart)
            QTimer::singleShot(0, w, &synaptic::ui::ControlPlaneWindow::start);
    } else if (!options.replayPath.isEmpty()) {
        // Read off the GUI thread (a cancellable progress dialog stays live),
        // before any other window is shown.
        synaptic::ui::ControlPlaneWindow *w = nullptr;
        QString error;
        QEventLoop reading;
        synaptic::ui::RecordingOpener::openWithDialog(
            options.replayPath, options.replayRun, nullptr,
            [&](synaptic::ui::ControlPlaneWindow *opened, const QString &why) {
                w = opened;
                error = why;
                reading.quit();
            });
        reading.exec();
        if (!w) {
            std::fprintf(stderr, "synaptic: error: %s\n", qPrintable(error.isEmpty() ? "cancelled" : error));
            return 1;
        }
        window.reset(w);
        // Once shown, so the views (the log's scroll position) lay out at the seeked time.
        QTimer::singleShot(0, w, [w, options] {
            if (options.replaySeek >= 0)
                w->replay()->seek(options.replaySeek);
            if (options.replayPlay)
                w->replay()->play();
        });
    } else if (options.langIdTask) {
        auto *w = new synaptic::ui::HotUpdateWindow(options.cluster);
        auto scenario = w->options();
        scenario.seed = options.cluster.seed;
        w->setOptions(scenario);
        w->setFortuneDir(options.fortuneDir);
        window.reset(w);
        if (options.autostart)
            QTimer::singleShot(0, w, &synaptic::ui::HotUpdateWindow::start);
    } else if (options.trainMode) {
        auto *w = new synaptic::ui::MainWindow(options.train);
        window.reset(w);
        if (options.autostart)
            QTimer::singleShot(0, w, &synaptic::ui::MainWindow::startTraining);
    } else {
        auto *w = new synaptic::ui::ControlPlaneWindow(options.cluster, options.clusterName);
        w->setBudget(options.stepsPerEdge, 0);
        for (const auto &c : options.commands)
            w->session().submit(c); // each waits for its virtual time
        if (!applyLayoutAndRecording(*w, options))
            return 2;
        window.reset(w);
        if (options.autostart)
            QTimer::singleShot(0, w, &synaptic::ui::ControlPlaneWindow::start);
        // A first run (no guide dismissed yet) opens the five-step guide beside
        // the window; scripted runs (screenshots, command files) go without.
        if (options.screenshotPath.isEmpty() && options.commands.empty())
            QTimer::singleShot(0, w, &synaptic::ui::ControlPlaneWindow::greetFirstRun);
    }
    window->show();
    for (const QString &name : options.showDocks) {
        auto *dock = window->findChild<QDockWidget *>(name);
        if (!dock) {
            std::fprintf(stderr, "synaptic: error: --show: no dock named %s\n", qPrintable(name));
            return 2;
        }
        dock->raise();
    }
    // A picture of one dock (README's shard map): floated, so it has the room.
    QWidget *shot = window.get();
    if (!options.screenshotDock.isEmpty()) {
        auto *dock = window->findChild<QDockWidget *>(options.screenshotDock);
        if (!dock) {
            std::fprintf(stderr, "synaptic: error: --screenshot-dock: no dock named %s\n",
                         qPrintable(options.screenshotDock));
            return 2;
        }
        dock->setFloating(true);
        dock->resize(960, 720);
        dock->show();
        shot = dock;
    }
    if (!options.screenshotPath.isEmpty()) {
        QTimer::singleShot(int(options.screenshotAfterSeconds * 1000), window.get(), [&, shot] {
            const bool ok = shot->grab().save(options.screenshotPath);
            std::fprintf(ok ? stdout : stderr, ok ? "screenshot saved to %s\n" : "cannot save screenshot to %s\n",
                         qPrintable(options.screenshotPath));
            window->close();
            QApplication::exit(ok ? 0 : 1);
        });
    }
    return QApplication::exec();
}
