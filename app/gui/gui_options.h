#pragma once

#include "core/engine/train_config.h"

#include <QString>

class QCommandLineParser;

namespace synaptic::app {

struct GuiOptions {
    engine::TrainConfig train;
    bool autostart = true;
    QString screenshotPath;
    double screenshotAfterSeconds = 5;
};

void addGuiOptions(QCommandLineParser &parser);
// Throws engine::ConfigError naming the bad flag.
GuiOptions readGuiOptions(const QCommandLineParser &parser);

} // namespace synaptic::app
