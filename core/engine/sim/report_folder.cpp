#include "report_folder.h"

#include "sim_world.h"

#include "core/engine/synapse/routing_table.h"

#include <stdexcept>

namespace synaptic::engine {

void ReportFolder::fold(double now, const NodeReport &report) {
    if (const auto *step = std::get_if<StepReport>(&report)) {
        if (m_sinks.stepDone)
            m_sinks.stepDone(step->samples);
    } else if (const auto *ledger = std::get_if<LedgerReport>(&report)) {
        if (m_sinks.ledger)
            m_sinks.ledger->fold(*ledger);
    } else if (const auto *route = std::get_if<RouteReport>(&report)) {
        if (m_sinks.strict) {
            foldRoute(now, *route);
        } else {
            try {
                foldRoute(now, *route);
            } catch (const std::exception &) {
                ++m_ignored; // reordered across processes, or a node we do not know
            }
        }
    } else if (const auto *event = std::get_if<SimEvent>(&report)) {
        SimEvent e = *event;
        if (auto *d = std::get_if<DriftEvent>(&e); d && m_sinks.routing) {
            const auto snap = m_sinks.routing->snapshot();
            if (d->shard >= 0 && std::size_t(d->shard) < snap->rows.size())
                d->versionLag = snap->rows[std::size_t(d->shard)]->versionLag(snap->regionOfEdge);
        }
        m_sinks.emit(std::move(e));
    }
}

void ReportFolder::foldRoute(double now, const RouteReport &r) {
    auto *table = m_sinks.routing;
    if (!table)
        return;
    using K = RouteReport::Kind;
    switch (r.kind) {
    case K::OwnerVersion: table->setOwnerVersion(r.shard, r.region, r.version, now); break;
    case K::CachedVersion: table->setCachedVersion(r.shard, r.edge, r.version); break;
    case K::CenterVersion: table->setCenterVersion(r.shard, r.version); break;
    case K::ParameterDrift: table->setParameterDrift(r.shard, r.value); break;
    case K::Owner:
        table->setOwner(r.shard, r.region, r.edge);
        m_sinks.emit(RoutingEvent{now, r.shard, r.region, r.edge, table->snapshot()->revision, "move"});
        break;
    }
}

} // namespace synaptic::engine
