#pragma once

#include "progress_meter.h"
#include "train_report.h"

#include <cstdio>

namespace synaptic::engine {

// Training progress for the headless CLI (`synaptic-node train`, and
// `serve` while it trains its model): the trainer's reports through a
// ProgressMeter, plus one permanent line per evaluation. Called on the
// trainer thread.
class ConsoleProgress {
public:
    explicit ConsoleProgress(std::FILE *stream, ProgressStyle style = {}, std::string label = "train");
    void operator()(const TrainProgress &p);

    bool isTerminal() const { return m_meter.terminal(); }

private:
    ProgressMeter m_meter;
};

} // namespace synaptic::engine
