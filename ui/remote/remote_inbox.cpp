#include "remote_inbox.h"

#include "core/engine/sim/sim_event_samples.h"

namespace synaptic::ui {

RemoteInbox::RemoteInbox(std::size_t sampleCapacity, std::size_t stateCapacity)
    : m_sampleCapacity(sampleCapacity), m_stateCapacity(stateCapacity) {}

bool RemoteInbox::isSample(const engine::SimEvent &event) { return engine::SimEventSamples::isSample(event); }

bool RemoteInbox::pushEvent(engine::SimEvent event) {
    const bool sample = isSample(event);
    std::unique_lock lock(m_mutex);
    if (!sample)
        m_drained.wait(lock, [this] { return m_closed || m_states.size() < m_stateCapacity; });
    if (m_closed)
        return false;
    if (sample) {
        if (m_samples.size() >= m_sampleCapacity) {
            m_samples.pop_front();
            ++m_coalesced;
            ++m_coalescedTotal;
        }
        m_samples.push_back({m_nextSeq++, std::move(event)});
    } else {
        m_states.push_back({m_nextSeq++, std::move(event)});
    }
    return true;
}

void RemoteInbox::setRouting(std::shared_ptr<const engine::RoutingSnapshot> snapshot) {
    std::lock_guard lock(m_mutex);
    m_routing = std::move(snapshot);
}

void RemoteInbox::setStatus(ClusterStatus status) {
    std::lock_guard lock(m_mutex);
    m_status = std::move(status);
}

void RemoteInbox::startNewRun() {
    std::lock_guard lock(m_mutex);
    m_states.clear();
    m_samples.clear();
    m_routing.reset();
    m_status.reset();
    m_reset = true;
    m_drained.notify_all();
}

void RemoteInbox::notify(Notice notice) {
    std::lock_guard lock(m_mutex);
    m_notices.push_back(std::move(notice));
}

void RemoteInbox::close() {
    std::lock_guard lock(m_mutex);
    m_closed = true;
    m_drained.notify_all();
}

RemoteInbox::Batch RemoteInbox::take(std::size_t maxEvents) {
    Batch b;
    {
        std::lock_guard lock(m_mutex);
        // Both queues hold arrival numbers: merge them back into arrival order.
        b.events.reserve(std::min(maxEvents, m_states.size() + m_samples.size()));
        while (b.events.size() < maxEvents && (!m_states.empty() || !m_samples.empty())) {
            const bool fromStates =
                m_samples.empty() || (!m_states.empty() && m_states.front().seq < m_samples.front().seq);
            auto &queue = fromStates ? m_states : m_samples;
            b.events.push_back(std::move(queue.front().event));
            queue.pop_front();
        }
        b.more = !m_states.empty() || !m_samples.empty();
        b.reset = m_reset;
        m_reset = false;
        b.routing = std::move(m_routing);
        m_routing.reset();
        b.status = std::move(m_status);
        m_status.reset();
        b.notices.swap(m_notices);
        b.coalesced = m_coalesced;
        m_coalesced = 0;
    }
    m_drained.notify_all();
    return b;
}

std::uint64_t RemoteInbox::coalescedTotal() const {
    std::lock_guard lock(m_mutex);
    return m_coalescedTotal;
}

} // namespace synaptic::ui
