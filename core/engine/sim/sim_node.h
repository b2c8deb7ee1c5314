#pragma once

#include "message.h"
#include "sim_command.h"

#include <string>

#include <vector>

namespace synaptic::engine {

// What a node asks its driver to do after handling one input: messages to
// send and timers to set. Nodes do no I/O of their own (DESIGN.md §3), so the
// same node code runs under the simulator and a live driver.
struct Outbox {
    struct Timer {
        double at = 0;
        int kind = 0;
        std::uint64_t arg = 0;
    };
    std::vector<Message> messages;
    std::vector<Timer> timers;

    void send(Message m) { messages.push_back(std::move(m)); }
    void timer(double at, int kind, std::uint64_t arg = 0) { timers.push_back({at, kind, arg}); }
};

// A center or edge as a state machine: inputs are the start, a message or a
// timer, each with the current (virtual or real) time.
class SimNode {
public:
    explicit SimNode(int id) : m_id(id) {}
    virtual ~SimNode() = default;
    SimNode(const SimNode &) = delete;
    SimNode &operator=(const SimNode &) = delete;

    int id() const { return m_id; }
    // Called at time 0, and again when a killed node is revived (its volatile
    // state is whatever the node keeps across a crash: see each node).
    virtual void start(double now, Outbox &out) = 0;
    virtual void onMessage(double now, Message &&message, Outbox &out) = 0;
    virtual void onTimer(double now, int kind, std::uint64_t arg, Outbox &out) = 0;
    // The node was killed: it loses in-flight work (pending timers are dropped
    // by the driver). Default: nothing to forget.
    virtual void onKilled(double /*now*/) {}
    // A live command addressed to this node (e.g. move a shard it owns).
    // Returns an empty string when applied, otherwise why it was refused.
    virtual std::string onCommand(double /*now*/, const SimCommand & /*cmd*/, Outbox & /*out*/) {
        return "not supported by this node";
    }

private:
    int m_id;
};

} // namespace synaptic::engine
