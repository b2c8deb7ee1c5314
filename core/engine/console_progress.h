#pragma once

#include "train_report.h"

#include <cstdio>
#include <string>

namespace synaptic::engine {

// Prints training progress for the headless CLI: a redrawn bar with ETA when
// the stream is a terminal, one plain line per report otherwise (logs, CI).
// Called on the trainer thread.
class ConsoleProgress {
public:
    explicit ConsoleProgress(std::FILE *stream);
    void operator()(const TrainProgress &p);

    bool isTerminal() const { return m_terminal; }

private:
    void drawBar(const TrainProgress &p);
    std::FILE *m_stream;
    bool m_terminal;
    bool m_barOpen = false;
    long long m_lastDecile = 0;
};

// "1h02m", "3m05s", "12s".
std::string formatDuration(double seconds);

} // namespace synaptic::engine
