#pragma once

#include "cluster_clock.h"

#include "core/engine/sim/sim_node.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <optional>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace synaptic::rpc {

// Runs one node (the same state machine the simulator runs) in real time
// (DESIGN.md §3, the live driver): one worker thread owns the node and does
// its LibTorch work; inputs (messages from gRPC callbacks, tasks such as
// commands) queue here and are handled one at a time; timers fire on the
// cluster clock. What the node sends, and what it reports, leaves through
// the sinks on the worker thread. post() never blocks for long: a gRPC
// callback copies the message in and returns (DESIGN.md §4).
class NodeHost {
public:
    struct Sinks {
        std::function<void(engine::Message &&)> send;                          // worker thread
        std::function<void(double now, std::vector<engine::NodeReport> &&)> report; // worker thread
        // The node's durable state, written before the handler's messages
        // leave (worker thread); empty: the node keeps none.
        std::function<void(const std::string &bytes, engine::StatePart part)> persist;
    };
    using Task = std::function<void(engine::SimNode &node, double now, engine::Outbox &out)>;

    NodeHost(std::unique_ptr<engine::SimNode> node, const ClusterClock &clock, Sinks sinks,
             std::size_t maxQueued = 4096);
    ~NodeHost();
    NodeHost(const NodeHost &) = delete;
    NodeHost &operator=(const NodeHost &) = delete;

    void start();  // the worker calls node->start(now)
    void stop();   // joins the worker; queued inputs are dropped

    // Any thread. False (and nothing queued) when the queue is full: the
    // caller answers RESOURCE_EXHAUSTED, the node is not flooded.
    bool post(engine::Message message);
    // False (and nothing queued) once stopped: a call waiting on the task
    // must then be answered by the caller, or it is never finished.
    bool postTask(Task task);

    std::size_t queued() const;
    // The node has no work left (its finished(), read after every input).
    bool finished() const { return m_finished.load(); }
    // Its settledAt(), likewise.
    double settledAt() const { return m_settledAt.load(); }
    std::uint64_t inputsHandled() const { return m_handled.load(); }

private:
    struct Timer {
        double at;
        std::uint64_t seq;
        int kind;
        std::uint64_t arg;
        bool operator>(const Timer &o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };
    struct Input {
        std::unique_ptr<engine::Message> message; // or a task
        Task task;
    };

    void run();  // the worker: loop(), stopping the process on an error it cannot recover from
    void loop();
    void dispatch(double now, engine::Outbox &out);

    std::unique_ptr<engine::SimNode> m_node;
    const ClusterClock &m_clock;
    Sinks m_sinks;
    const std::size_t m_maxQueued;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Input> m_inputs;                                                // guarded by m_mutex
    std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> m_timers; // worker thread
    std::uint64_t m_timerSeq = 0;                                              // worker thread
    bool m_stop = false;                                                       // guarded by m_mutex
    std::thread m_worker;
    std::atomic<bool> m_finished{false};
    std::atomic<double> m_settledAt{std::numeric_limits<double>::infinity()};
    std::atomic<std::uint64_t> m_handled{0};
};

} // namespace synaptic::rpc
