#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace synaptic::engine {

// The hand-off from the engine thread to an observer on another thread (the
// GUI, a recorder) (DESIGN.md §4-5): push() never blocks the engine for
// longer than one short lock, and never loses an item that changes state.
//
// Items are of two kinds, as Policy says:
//   - state items (leases, routing, commands, node up/down...) are kept,
//     every one, in order, however far the observer falls behind: they are
//     rare, and a view that missed one would show a wrong state for good.
//     Memory grows with them while the observer stalls: the bound is on
//     samples only;
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
// and may provide
//   static bool isBarrier(const T &);         // nothing folds across it (a run's start or end)
template <typename T, typename Policy>
class CoalescingQueue {
public:
    explicit CoalescingQueue(std::size_t sampleCapacity)
        : m_sampleCapacity(sampleCapacity), m_nextCoalesce(sampleCapacity) {
        if (sampleCapacity == 0)
            throw std::invalid_argument("CoalescingQueue: sample capacity must be at least 1");
    }

    // Engine thread.
    void push(T item) {
        const bool sample = Policy::isSample(item);
        std::lock_guard lock(m_mutex);
        m_items.push_back({std::move(item), sample});
        ++m_pushed;
        if (sample && ++m_samples >= m_nextCoalesce)
            coalesceLocked();
    }

    // Observer thread: everything queued, oldest first.
    std::vector<T> drain() {
        std::vector<T> out;
        drainInto([&out](T &&item, std::uint64_t) { out.push_back(std::move(item)); });
        return out;
    }
    // Observer thread: take(item, folded) for everything queued, oldest
    // first; `folded` is how many older samples the item took in.
    template <typename Take>
    void drainInto(Take &&take) {
        std::deque<Entry> taken;
        {
            std::lock_guard lock(m_mutex);
            taken.swap(m_items);
            m_samples = 0;
            m_nextCoalesce = m_sampleCapacity;
        }
        for (auto &e : taken)
            take(std::move(e.item), e.absorbed);
    }

    // Any thread.
    std::size_t size() const {
        std::lock_guard lock(m_mutex);
        return m_items.size();
    }
    // Any thread: items pushed since the queue was made.
    std::uint64_t pushed() const {
        std::lock_guard lock(m_mutex);
        return m_pushed;
    }
    // Any thread: samples folded into a later one since the queue was made.
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
        std::uint64_t absorbed = 0; // older samples folded into this one
    };

    static bool isBarrier(const T &item) {
        if constexpr (requires { Policy::isBarrier(item); })
            return Policy::isBarrier(item);
        else
            return false;
    }

    // Newest first, so each key's newest sample survives and takes in the
    // older ones; state items keep their places; a barrier starts over.
    // Linear in what waits; the next pass comes when the samples left have
    // doubled (at least `sampleCapacity`), so a queue whose waiting samples
    // all have distinct keys is not rescanned on every push.
    void coalesceLocked() {
        using Key = decltype(Policy::sampleKey(std::declval<const T &>()));
        std::map<Key, Entry *> newest;
        std::size_t folded = 0;
        for (auto it = m_items.rbegin(); it != m_items.rend(); ++it) {
            if (isBarrier(it->item))
                newest.clear();
            if (!it->sample)
                continue;
            auto [slot, fresh] = newest.try_emplace(Policy::sampleKey(it->item), &*it);
            if (fresh)
                continue;
            Policy::absorb(slot->second->item, it->item);
            slot->second->absorbed += it->absorbed + 1;
            it->folded = true;
            ++folded;
        }
        if (folded > 0) {
            std::deque<Entry> kept;
            for (auto &e : m_items)
                if (!e.folded)
                    kept.push_back(std::move(e));
            m_items.swap(kept);
            m_samples -= folded;
            m_coalesced += folded;
        }
        m_nextCoalesce = std::max(m_sampleCapacity, 2 * m_samples);
    }

    const std::size_t m_sampleCapacity;
    mutable std::mutex m_mutex;
    std::deque<Entry> m_items;
    std::size_t m_samples = 0;      // samples among m_items
    std::size_t m_nextCoalesce;     // fold when m_samples reaches this
    std::uint64_t m_pushed = 0;
    std::uint64_t m_coalesced = 0;
};

} // namespace synaptic::engine
