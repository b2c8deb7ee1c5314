#include "event_loop.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace synaptic::engine {

void EventLoop::at(double time, Action action) {
    if (!std::isfinite(time) || time < m_now)
        throw std::invalid_argument("EventLoop: cannot schedule at " + std::to_string(time) +
                                    " (now is " + std::to_string(m_now) + ")");
    m_queue.push({time, m_nextSeq++, std::move(action)});
}

bool EventLoop::step() {
    if (m_queue.empty())
        return false;
    // Move the action out before popping: it may schedule more events.
    Event next = std::move(const_cast<Event &>(m_queue.top()));
    m_queue.pop();
    m_now = next.time;
    next.action();
    return true;
}

std::size_t EventLoop::runUntil(double until) {
    std::size_t ran = 0;
    while (!m_queue.empty() && m_queue.top().time <= until) {
        step();
        ++ran;
    }
    if (until > m_now)
        m_now = until;
    return ran;
}

} // namespace synaptic::engine
