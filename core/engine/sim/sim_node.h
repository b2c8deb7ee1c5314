#pragma once

#include "message.h"
#include "node_report.h"
#include "sim_command.h"

#include "core/engine/durable/state_part.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::engine {

class FlatModel;

// What a node asks its driver to do after handling one input: messages to
// send, timers to set, and reports for observers. Nodes do no I/O of their
// own (DESIGN.md §3), so the same node code runs under the simulator and a
// live driver.
struct Outbox {
    struct Timer {
        double at = 0;
        int kind = 0;
        std::uint64_t arg = 0;
    };
    // A timer that ends a stretch of compute booked on the node's compute
    // queue (a training step): it starts once the node's earlier compute
    // (and serving requests) are done, and whatever the node computes or
    // serves next waits behind it. Booked after this handler's messages
    // leave, so they never wait for it.
    struct ComputeTimer {
        double seconds = 0;
        int kind = 0;
        std::uint64_t arg = 0;
    };
    std::vector<Message> messages;
    std::vector<Timer> timers;
    std::vector<ComputeTimer> computeTimers;
    std::vector<NodeReport> reports;
    // Virtual seconds of compute the handler charged (an owner's or a
    // center's optimizer step and merge, issue 14 §3): the node is busy
    // that long before its messages leave. Live drivers compute for real.
    double computeSeconds = 0;
    // The node's durable state to write before any of these messages leave
    // (issue 15 §1; as etcd raft's Ready: the caller owns storage). Nodes
    // read theirs back through NodeContext::stateStore; only the driver
    // writes. A later persist() in the same handler replaces an earlier one.
    std::optional<std::string> durableState;
    // The state of the hub the node hosts (StatePart::Hub), likewise.
    std::optional<std::string> durableHubState;

    void send(Message m) { messages.push_back(std::move(m)); }
    void persist(std::string bytes, StatePart part = StatePart::Node) {
        (part == StatePart::Hub ? durableHubState : durableState) = std::move(bytes);
    }
    void compute(double seconds) { computeSeconds += seconds; }
    void timer(double at, int kind, std::uint64_t arg = 0) { timers.push_back({at, kind, arg}); }
    void computeTimer(double seconds, int kind, std::uint64_t arg = 0) {
        computeTimers.push_back({seconds, kind, arg});
    }
    void report(NodeReport r) { reports.push_back(std::move(r)); }
    void ledger(LedgerReport::Kind kind, std::uint64_t count) {
        if (count > 0)
            reports.push_back(LedgerReport{kind, -1, count, {}});
    }
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
    // A killed node comes back: by default start() again. `fromOldState`:
    // it restarts from the durable state before its newest (a fault).
    virtual void revive(double now, bool fromOldState, Outbox &out) {
        (void)fromOldState;
        start(now, out);
    }
    virtual void onMessage(double now, Message &&message, Outbox &out) = 0;
    virtual void onTimer(double now, int kind, std::uint64_t arg, Outbox &out) = 0;
    // The node was killed: it loses in-flight work (pending timers are dropped
    // by the driver). What it reports here (work lost) the driver still folds.
    virtual void onKilled(double /*now*/, Outbox & /*out*/) {}
    // A live command addressed to this node (e.g. move a shard it owns).
    // Returns an empty string when applied, otherwise why it was refused.
    virtual std::string onCommand(double /*now*/, const SimCommand & /*cmd*/, Outbox & /*out*/) {
        return "not supported by this node";
    }

    // The node's process is leaving cleanly (SIGTERM): stop training and
    // hand what it owns to edges that stay (`edgeUp`: per edge index).
    virtual void onLeave(double /*now*/, const std::vector<bool> & /*edgeUp*/, Outbox & /*out*/) {}
    // The node has no work left: its step budget is used and nothing it
    // sent waits for an answer (a live driver ends the run on it).
    virtual bool finished() const { return false; }
    // A live driver ends the run once the node is finished() and this is
    // at or after the moment every edge had finished (the node's clock):
    // what the node takes from others since is complete. By default at
    // any time. The synaptic center under hub merges: when it sent the
    // newest pull round that found every hub's copy held.
    virtual double settledAt() const { return std::numeric_limits<double>::infinity(); }
    // Window gradients this node holds and has not applied yet (an owner's
    // buffer): measurement, not protocol; the audit reports them lost when
    // the run ends with them still held.
    // (shard, contribution id) pairs.
    virtual std::vector<std::pair<int, std::uint64_t>> heldContributions() const { return {}; }
    // The model this node serves inference with (an edge's replica), or
    // null. Read on the node's thread only.
    virtual FlatModel *servingModel() { return nullptr; }
    // Measurement, not protocol: the model this node would be judged by
    // (a center's global copy), for a live driver's evaluation. False when
    // the node holds none.
    virtual bool evaluationModel(at::Tensor & /*values*/, at::Tensor & /*buffers*/) const { return false; }

private:
    int m_id;
};

} // namespace synaptic::engine
