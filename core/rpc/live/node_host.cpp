#include "node_host.h"

#include <cstdio>
#include <cstdlib>

namespace synaptic::rpc {

NodeHost::NodeHost(std::unique_ptr<engine::SimNode> node, const ClusterClock &clock, Sinks sinks,
                   std::size_t maxQueued)
    : m_node(std::move(node)), m_clock(clock), m_sinks(std::move(sinks)), m_maxQueued(maxQueued) {}

NodeHost::~NodeHost() { stop(); }

void NodeHost::start() {
    m_worker = std::thread([this] { run(); });
}

void NodeHost::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_worker.joinable())
        m_worker.join();
}

bool NodeHost::post(engine::Message message) {
    {
        std::lock_guard lock(m_mutex);
        if (m_stop || m_inputs.size() >= m_maxQueued)
            return false;
        m_inputs.push_back({std::make_unique<engine::Message>(std::move(message)), {}});
    }
    m_wake.notify_one();
    return true;
}

bool NodeHost::postTask(Task task) {
    {
        std::lock_guard lock(m_mutex);
        if (m_stop)
            return false;
        m_inputs.push_back({nullptr, std::move(task)});
    }
    m_wake.notify_one();
    return true;
}

std::size_t NodeHost::queued() const {
    std::lock_guard lock(m_mutex);
    return m_inputs.size();
}

void NodeHost::dispatch(double now, engine::Outbox &out) {
    if (out.durableState && m_sinks.persist) // before anything the handler sends leaves
        m_sinks.persist(*out.durableState, engine::StatePart::Node);
    if (out.durableHubState && m_sinks.persist)
        m_sinks.persist(*out.durableHubState, engine::StatePart::Hub);
    if (!out.reports.empty() && m_sinks.report)
        m_sinks.report(now, std::move(out.reports));
    for (const auto &t : out.timers)
        m_timers.push({t.at, m_timerSeq++, t.kind, t.arg});
    // Live compute is real (the step already ran on this thread), so a
    // compute timer's virtual seconds are 0 here; it fires after them.
    for (const auto &t : out.computeTimers)
        m_timers.push({now + t.seconds, m_timerSeq++, t.kind, t.arg});
    static const bool trace = std::getenv("SYNAPTIC_TRACE_MESSAGES") != nullptr;
    for (auto &m : out.messages) {
        m.from = m_node->id();
        if (trace)
            std::fprintf(stderr, "trace %.3f node %d sends %s to %d (%zu shards)\n", now, m.from,
                         engine::messageKindName(m.kind), m.to, m.shards.size());
        m_sinks.send(std::move(m));
    }
    m_finished = m_node->finished();
    m_settledAt = m_node->settledAt();
    ++m_handled;
}

void NodeHost::run() {
    // A state file that cannot be written or read back (StateFileError,
    // naming it) stops the process with a message, not std::terminate from
    // this thread; every file already written is whole (atomic writes).
    try {
        loop();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "synaptic-node: node %d stopped: %s\n", m_node->id(), e.what());
        std::fflush(stderr);
        std::_Exit(1);
    }
}

void NodeHost::loop() {
    {
        engine::Outbox out;
        const double now = m_clock.now();
        m_node->start(now, out);
        dispatch(now, out);
    }
    for (;;) {
        Input input;
        std::optional<Timer> timer;
        {
            std::unique_lock lock(m_mutex);
            for (;;) {
                if (m_stop)
                    return;
                if (!m_inputs.empty())
                    break;
                if (!m_timers.empty() && m_timers.top().at <= m_clock.now())
                    break;
                if (m_timers.empty())
                    m_wake.wait(lock);
                else
                    m_wake.wait_until(lock, m_clock.toSteady(m_timers.top().at));
            }
            // Due timers first: a flood of messages must not starve the
            // heartbeat or the lease expiry.
            if (!m_timers.empty() && m_timers.top().at <= m_clock.now()) {
                timer = m_timers.top();
                m_timers.pop();
            } else {
                input = std::move(m_inputs.front());
                m_inputs.pop_front();
            }
        }
        engine::Outbox out;
        const double now = m_clock.now();
        if (timer)
            m_node->onTimer(now, timer->kind, timer->arg, out);
        else if (input.message) {
            static const bool trace = std::getenv("SYNAPTIC_TRACE_MESSAGES") != nullptr;
            if (trace)
                std::fprintf(stderr, "trace %.3f node %d gets %s from %d\n", now, m_node->id(),
                             engine::messageKindName(input.message->kind), input.message->from);
            m_node->onMessage(now, std::move(*input.message), out);
        }
        else if (input.task)
            input.task(*m_node, now, out);
        dispatch(now, out);
    }
}

} // namespace synaptic::rpc
