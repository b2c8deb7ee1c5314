#pragma once

#include "node_report.h"
#include "sim_events.h"

#include <functional>

namespace synaptic::engine {

class RoutingTable;
struct ContributionLedger;

// Folds what nodes report (NodeReport) into the cluster-wide views a driver
// keeps: the routing table, the contribution ledger, the samples trained
// and the event stream. The simulator folds every node's reports; a live
// center folds its own and those its edges send it. Fills in what a single
// node cannot know: a DriftEvent's version lag and a RoutingEvent's table
// revision. One thread (the driver's).
class ReportFolder {
public:
    struct Sinks {
        RoutingTable *routing = nullptr;     // may be null (strategies without a table still fold)
        ContributionLedger *ledger = nullptr;
        std::function<void(SimEvent)> emit;
        std::function<void(std::uint64_t samples)> stepDone; // a training step finished
        // The simulator folds in causal order, so a version going backwards
        // is a bug and throws. Reports from separate processes may arrive
        // reordered (an old owner's last version after the new owner's
        // first): a live center keeps the newer and counts the stale one.
        bool strict = true;
    };

    explicit ReportFolder(Sinks sinks) : m_sinks(std::move(sinks)) {}

    // `now`: when the node made the report (the handler's time).
    void fold(double now, const NodeReport &report);
    // Route reports ignored as stale or invalid (live only).
    std::uint64_t ignored() const { return m_ignored; }

private:
    void foldRoute(double now, const RouteReport &r);

    Sinks m_sinks;
    std::uint64_t m_ignored = 0;
};

} // namespace synaptic::engine
