#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace synaptic::engine {

// The hand-off from the engine thread to observers (GUI, recorder, reports)
// on other threads (DESIGN.md §3-4). push() never blocks the engine for
// longer than one short lock: when the queue is full it drops the oldest
// item and counts it, so a stalled observer costs data, never engine time.
// drain() takes everything under one lock, which is how the GUI coalesces.
template <typename T>
class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity) : m_capacity(capacity) {
        if (capacity == 0)
            throw std::invalid_argument("BoundedQueue: capacity must be at least 1");
    }

    // Engine thread. Returns false if an old item had to be dropped.
    bool push(T item) {
        std::lock_guard lock(m_mutex);
        bool kept = true;
        if (m_items.size() == m_capacity) {
            m_items.pop_front();
            ++m_dropped;
            kept = false;
        }
        m_items.push_back(std::move(item));
        ++m_pushed;
        return kept;
    }

    // Any observer thread: everything queued, oldest first.
    std::vector<T> drain() {
        std::deque<T> taken;
        {
            std::lock_guard lock(m_mutex);
            taken.swap(m_items);
        }
        return std::vector<T>(std::make_move_iterator(taken.begin()), std::make_move_iterator(taken.end()));
    }

    std::size_t size() const {
        std::lock_guard lock(m_mutex);
        return m_items.size();
    }
    std::uint64_t dropped() const {
        std::lock_guard lock(m_mutex);
        return m_dropped;
    }
    std::uint64_t pushed() const {
        std::lock_guard lock(m_mutex);
        return m_pushed;
    }
    std::size_t capacity() const { return m_capacity; }

private:
    const std::size_t m_capacity;
    mutable std::mutex m_mutex;
    std::deque<T> m_items;
    std::uint64_t m_dropped = 0;
    std::uint64_t m_pushed = 0;
};

} // namespace synaptic::engine
