#pragma once

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_command.h"

#include <vector>
#include "core/engine/train_config.h"
#include "ui/remote/remote_target.h"

#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace synaptic::app {

struct GuiOptions {
    // Default: the control plane on a simulated cluster. --train: the
    // single-model training window of the first release.
    bool trainMode = false;
    // --task langid: the language-ID model's embedding hot updates on the
    // cluster config (issue 16) instead of Fashion-MNIST's control plane.
    bool langIdTask = false;
    QString fortuneDir; // --data with --task langid
    engine::ClusterConfig cluster;
    QString clusterName;            // file name shown in the title
    std::uint64_t stepsPerEdge = 0; // 0: train until stopped
    std::vector<engine::SimCommand> commands; // --commands FILE: timed commands (scripted demos, screenshots)
    QString layoutPath;                       // --layout FILE: a saved dock arrangement
    engine::TrainConfig train;
    bool autostart = true;
    QString screenshotPath;
    QStringList showDocks;  // --show DOCK: raise these docks (scripted screenshots)
    QString screenshotDock; // --screenshot-dock DOCK: picture only this dock, floated
    double screenshotAfterSeconds = 5;
    QString recordPath;   // --record FILE
    QString replayPath;   // --replay FILE: replay instead of running
    int replayRun = 0;
    double replaySeek = -1; // < 0: the run's start
    bool replayPlay = false;
    // --connect ADDR: the control plane of a live cluster (synaptic-node
    // cluster / center) instead of an embedded one; its config comes from
    // the center. remote.security holds --token-file and the TLS flags.
    bool connect = false;
    ui::RemoteTarget remote;
};

void addGuiOptions(QCommandLineParser &parser);
// Throws engine::ConfigError naming the bad flag or config field.
GuiOptions readGuiOptions(const QCommandLineParser &parser);

} // namespace synaptic::app
