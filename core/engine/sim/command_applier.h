#pragma once

#include "sim_command.h"
#include "sim_events.h"

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace synaptic::engine {

class SimServing;
class SimTransport;
class Strategy;
struct SimWorld;

// The simulator's command path (DESIGN.md §3): commands submitted from any
// thread, or scheduled before the run, are applied at the next command
// boundary (a step boundary, or a link-report tick when nothing trains)
// at or after their time, or at the exact boundary a recording says they
// landed on; each one becomes a CommandEvent, applied or refused with why.
class CommandApplier {
public:
    struct Hooks {
        // Hands `cmd` to node `node` and dispatches what it sends; returns
        // why it was refused (empty: applied).
        std::function<std::string(int node, const SimCommand &cmd)> toNode;
        std::function<bool(int node)> alive;
        std::function<bool(int node)> exists;
        // Kill or revive (the node exists); a revive from the node's old state file when `oldState`.
        std::function<void(int node, bool kill, bool oldState)> setAlive;
        std::function<double()> now;
        std::function<void(SimEvent)> emit;
    };

    CommandApplier(SimWorld &world, Strategy &strategy, SimTransport &transport, SimServing &serving, Hooks hooks,
                   std::vector<SimCommand> scheduled);

    void submit(SimCommand command);        // any thread
    void applyDue();                        // engine thread: one command boundary

private:
    std::string apply(const SimCommand &c);
    std::string applyKnob(const SimCommand &c);
    std::string applyNetwork(const SimCommand &c);

    SimWorld &m_world;
    Strategy &m_strategy;
    SimTransport &m_transport;
    SimServing &m_serving;
    Hooks m_hooks;
    std::mutex m_mutex;
    std::vector<SimCommand> m_submitted; // guarded by m_mutex
    std::vector<SimCommand> m_scheduled; // engine thread
    std::uint64_t m_boundary = 0;        // engine thread: applyDue() calls so far
};

} // namespace synaptic::engine
