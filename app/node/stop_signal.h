#pragma once

#include <atomic>

namespace synaptic::app {

// SIGINT and SIGTERM set a flag the process polls (a handler may do no
// more); a second one of either ends the process at once.
void installStopSignals();
const std::atomic<bool> &stopRequested();

} // namespace synaptic::app
