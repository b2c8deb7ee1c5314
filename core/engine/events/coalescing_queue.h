#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace synaptic::engine {

// The hand-off from the engine thread to an observer on another thread (the
// GUI, a recorder) (DESIGN.md §4-5): push() never blocks the engine for
// longer than one short lock, and never loses an item that changes state.
//
// Items are of two kinds, as Policy says:
//   - state items (leases, routing, commands, node up/down...) are kept,
//     every one, in order, however far the observer falls behind: they are
//     rare, and a view that missed one would show a wrong state for good;
//   - samples (a metric point, a link's bytes in an interval) may be
//     coalesced: when `sampleCapacity` of them wait, every sample is folded
//     into the newest waiting sample with the same key (Policy::absorb adds
//     what adds up, such as bytes, and keeps the latest of what does not),
//     so totals stay exact and only the resolution of a series is lost.
//     coalesced() counts the samples folded away.
//
// Policy provides:
//   static bool isSample(const T &);
//   static Key sampleKey(const T &);          // Key ordered (std::map)
//   static void absorb(T &newer, const T &older);
// drain() takes everything under one lock, oldest first: how the GUI
// coalesces its redraws.
template <typename T, typename Policy>
class CoalescingQueue {
public:
    explicit CoalescingQueue(std::size_t sampleCapacity) : m_sampleCapacity(sampleCapacity) {
        if (sampleCapacity == 0)
            throw std::invalid_argument("CoalescingQueue: sample capacity must be at least 1");
    }

    // Engine thread.
    void push(T item) {
        const bool sample = Policy::isSample(item);
        std::lock_guard lock(m_mutex);
        m_items.push_back({std::move(item), sample});
        ++m_pushed;
        if (sample && ++m_samples >= m_sampleCapacity)
            coalesceLocked();
    }

    // Any observer thread: everything queued, oldest first.
    std::vector<T> drain() {
        std::deque<Entry> taken;
        {
            std::lock_guard lock(m_mutex);
            taken.swap(m_items);
            m_samples = 0;
        }
        std::vector<T> out;
        out.reserve(taken.size());
        for (auto &e : taken)
            out.push_back(std::move(e.item));
        return out;
    }

    std::size_t size() const {
        std::lock_guard lock(m_mutex);
        return m_items.size();
    }
    std::uint64_t pushed() const {
        std::lock_guard lock(m_mutex);
        return m_pushed;
    }
    // Samples folded into a later one since the queue was made.
    std::uint64_t coalesced() const {
        std::lock_guard lock(m_mutex);
        return m_coalesced;
    }
    std::size_t sampleCapacity() const { return m_sampleCapacity; }

private:
    struct Entry {
        T item;
        bool sample = false;
        bool folded = false;
    };

    // Newest first, so each key's newest sample survives and takes in the
    // older ones; state items keep their places. Linear, but it runs once
    // per `sampleCapacity` pushes at most while the observer is stalled,
    // and leaves one sample per key (links, scopes, shards: hundreds).
    void coalesceLocked() {
        using Key = decltype(Policy::sampleKey(std::declval<const T &>()));
        std::map<Key, Entry *> newest;
        std::size_t folded = 0;
        for (auto it = m_items.rbegin(); it != m_items.rend(); ++it) {
            if (!it->sample)
                continue;
            auto [slot, fresh] = newest.try_emplace(Policy::sampleKey(it->item), &*it);
            if (fresh)
                continue;
            Policy::absorb(slot->second->item, it->item);
            it->folded = true;
            ++folded;
        }
        if (folded == 0)
            return; // every waiting sample has its own key: nothing to fold
        std::deque<Entry> kept;
        for (auto &e : m_items)
            if (!e.folded)
                kept.push_back(std::move(e));
        m_items.swap(kept);
        m_samples -= folded;
        m_coalesced += folded;
    }

    const std::size_t m_sampleCapacity;
    mutable std::mutex m_mutex;
    std::deque<Entry> m_items;
    std::size_t m_samples = 0; // samples among m_items
    std::uint64_t m_pushed = 0;
    std::uint64_t m_coalesced = 0;
};

} // namespace synaptic::engine
