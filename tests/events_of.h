#pragma once

#include "core/engine/sim/sim_events.h"

#include <vector>

// The events of one kind from a recorded stream, in order (test helper).
template <typename T>
std::vector<T> eventsOf(const std::vector<synaptic::engine::SimEvent> &events) {
    std::vector<T> out;
    for (const auto &e : events)
        if (const auto *t = std::get_if<T>(&e))
            out.push_back(*t);
    return out;
}
