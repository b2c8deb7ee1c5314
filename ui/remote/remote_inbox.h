#pragma once

#include "cluster_status.h"

#include "core/engine/sim/sim_events.h"
#include "core/engine/synapse/routing_table.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::ui {

// What a remote cluster's reader thread hands the GUI thread (DESIGN.md §4
// and §5): events in arrival order, the latest routing table, the latest
// cluster description, and notices about the connection.
//
// Bounded, and lossless where it matters: state-changing events (leases,
// node down, commands, routing changes, consistency checks, images,
// refused inputs) are never dropped: when kStateCapacity of them wait, the
// reader blocks until the GUI drains (the center keeps the history, and a
// reader cut off for being slow reconnects and skips what it has). Metric
// samples (metrics, link bytes, drift, inference intervals) are coalesced
// instead: beyond kSampleCapacity the oldest go, counted, and the GUI says so.
// The routing table and the description keep only the latest: each is a
// whole state that supersedes the one before.
class RemoteInbox {
public:
    struct Notice {
        enum class Kind {
            Connected,     // the stream is up (again)
            Reconnecting,  // the stream dropped; retrying with backoff
            Failed,        // cannot (or may not) talk to the center: the session is over
            Ended,         // the stream ended after the run finished
            CommandFailed, // a Submit did not reach the center
        };
        Kind kind;
        std::string text;
    };

    // One take() for the GUI: `reset` first (the center started another
    // run: empty the views), then `events` in order, then the rest.
    struct Batch {
        bool reset = false;
        std::vector<engine::SimEvent> events;
        std::shared_ptr<const engine::RoutingSnapshot> routing; // null: none since the last take
        std::optional<ClusterStatus> status;
        std::vector<Notice> notices;
        std::uint64_t coalesced = 0; // metric samples dropped since the last take
        bool more = false;           // events were left for the next take
    };

    static constexpr std::size_t kSampleCapacity = 100000;
    static constexpr std::size_t kStateCapacity = 200000;

    explicit RemoteInbox(std::size_t sampleCapacity = kSampleCapacity, std::size_t stateCapacity = kStateCapacity);

    // Reader thread. pushEvent() blocks while kStateCapacity state events
    // wait; it returns false once close() was called.
    bool pushEvent(engine::SimEvent event);
    void setRouting(std::shared_ptr<const engine::RoutingSnapshot> snapshot);
    void setStatus(ClusterStatus status);
    // Drops what is queued from the previous run; the next take() says reset.
    void startNewRun();
    // Any thread.
    void notify(Notice notice);
    // Wakes a blocked pushEvent() for good (the session is stopping).
    void close();

    // GUI thread: at most `maxEvents` events, oldest first.
    Batch take(std::size_t maxEvents);
    std::uint64_t coalescedTotal() const;

    // Metric samples may be coalesced; everything else changes state.
    static bool isSample(const engine::SimEvent &event);

private:
    struct Entry {
        std::uint64_t seq;
        engine::SimEvent event;
    };
    const std::size_t m_sampleCapacity;
    const std::size_t m_stateCapacity;
    mutable std::mutex m_mutex;
    std::condition_variable m_drained;
    std::deque<Entry> m_states;  // guarded by m_mutex
    std::deque<Entry> m_samples; // guarded by m_mutex
    std::uint64_t m_nextSeq = 0; // guarded by m_mutex
    std::shared_ptr<const engine::RoutingSnapshot> m_routing; // guarded by m_mutex
    std::optional<ClusterStatus> m_status;                    // guarded by m_mutex
    std::vector<Notice> m_notices;                            // guarded by m_mutex
    bool m_reset = false;                                     // guarded by m_mutex
    bool m_closed = false;                                    // guarded by m_mutex
    std::uint64_t m_coalesced = 0;                            // guarded by m_mutex: since the last take
    std::uint64_t m_coalescedTotal = 0;                       // guarded by m_mutex
};

} // namespace synaptic::ui
