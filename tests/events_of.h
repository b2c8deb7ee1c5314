#pragma once

#include "core/engine/sim/sim_event_samples.h"
#include "core/engine/sim/sim_events.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
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

// The state events of a stream (everything a view must never miss), as
// canonical text, in order: two streams agree on state when these are equal.
inline std::vector<std::string> stateEventTexts(const std::vector<synaptic::engine::SimEvent> &events) {
    std::vector<std::string> out;
    for (const auto &e : events)
        if (!synaptic::engine::SimEventSamples::isSample(e))
            out.push_back(synaptic::engine::describeEvent(e));
    return out;
}

// What the views' queue carries of those: everything but the audit history,
// which goes to recorders and checkers only (Simulation's observer).
inline std::vector<std::string> viewStateEventTexts(const std::vector<synaptic::engine::SimEvent> &events) {
    std::vector<std::string> out;
    for (const auto &e : events)
        if (!synaptic::engine::SimEventSamples::isSample(e) && !std::holds_alternative<synaptic::engine::AuditEvent>(e))
            out.push_back(synaptic::engine::describeEvent(e));
    return out;
}

// Bytes per link (from, to node ids) over every LinkBytesEvent of a stream.
inline std::map<std::pair<int, int>, std::uint64_t> bytesPerLink(const std::vector<synaptic::engine::SimEvent> &events) {
    std::map<std::pair<int, int>, std::uint64_t> total;
    for (const auto &e : events)
        if (const auto *l = std::get_if<synaptic::engine::LinkBytesEvent>(&e))
            total[{l->from, l->to}] += l->bytes;
    return total;
}
