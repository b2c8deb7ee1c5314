#include "stop_signal.h"

#include <csignal>
#include <unistd.h>

namespace synaptic::app {

namespace {
std::atomic<bool> g_stop{false};

void onSignal(int signal) {
    if (g_stop.exchange(true))
        _exit(128 + signal); // asked twice: do not wait any longer
}
} // namespace

void installStopSignals() {
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    signal(SIGPIPE, SIG_IGN); // a reader that went away is an error code, not a death
}

const std::atomic<bool> &stopRequested() { return g_stop; }

} // namespace synaptic::app
