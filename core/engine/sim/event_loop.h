#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace synaptic::engine {

// The simulation driver's clock: a discrete-event loop over virtual seconds.
// Events at the same time run in the order they were scheduled, so a run is
// deterministic. Engine thread only.
class EventLoop {
public:
    using Action = std::function<void()>;

    double now() const { return m_now; }
    // Schedules `action` at absolute virtual time `time` (>= now()).
    void at(double time, Action action);
    void after(double delay, Action action) { at(m_now + delay, std::move(action)); }

    // Runs events in time order until none is left at or before `until`, and
    // leaves the clock at `until`. Returns how many ran.
    std::size_t runUntil(double until);
    // Runs the next event, if any. Returns false when the queue is empty.
    bool step();
    bool empty() const { return m_queue.empty(); }
    // Time of the next event; only valid when !empty().
    double nextTime() const { return m_queue.top().time; }
    std::size_t pending() const { return m_queue.size(); }

private:
    struct Event {
        double time;
        std::uint64_t seq;
        Action action;
    };
    struct Later {
        bool operator()(const Event &a, const Event &b) const {
            return a.time != b.time ? a.time > b.time : a.seq > b.seq;
        }
    };
    std::priority_queue<Event, std::vector<Event>, Later> m_queue;
    double m_now = 0;
    std::uint64_t m_nextSeq = 0;
};

} // namespace synaptic::engine
