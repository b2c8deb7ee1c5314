#pragma once

#include "sim_events.h"

#include "core/engine/events/coalescing_queue.h"

#include <string>
#include <tuple>

namespace synaptic::engine {

// Which engine events are samples a slow observer may coalesce, and how
// (DESIGN.md §5: state-changing events are never dropped on the way to the
// UI; only metric samples may be coalesced, and the UI says when they are).
//
// Samples: metric points, link bytes per interval, drift per shard and
// region, serving intervals. Everything else (leases, routing, commands,
// consistency checks, edge images, refused inputs) changes what a view
// shows for good, and is kept.
struct SimEventSamples {
    // (kind, text key, two numbers): one series per key.
    using Key = std::tuple<int, std::string, int, int>;

    static bool isSample(const SimEvent &event);
    static Key sampleKey(const SimEvent &event);
    // Folds `older` into `newer` of the same key: link bytes and serving
    // counts add up over the joined interval (totals stay exact); a serving
    // interval's percentiles become the larger of the two (an upper bound on
    // the joined interval's); a drift reading keeps the worst version lag and
    // parameter drift of the two; a metric point is replaced by the newer one.
    static void absorb(SimEvent &newer, const SimEvent &older);
};

using SimEventQueue = CoalescingQueue<SimEvent, SimEventSamples>;

} // namespace synaptic::engine
