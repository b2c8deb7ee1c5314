#include "topology_geography.h"

#include "topology_tooltips.h"
#include "topology_view.h"
#include "topology_text.h"

#include "core/engine/sim/link_geography.h"

#include <QStringList>

namespace synaptic::ui {

namespace {
using topology_text::tr;
} // namespace

void showGeography(TopologyView &view, const engine::ClusterConfig &config) {
    const engine::LinkGeography geo(config);
    const int edges = geo.edgeCount();
    if (edges != view.edgeCount())
        return; // the view shows another cluster
    // Node ids as the engine's: 0 = center, edge e = e + 1.
    for (int a = 0; a <= edges; ++a)
        for (int b = a + 1; b <= edges; ++b) {
            const engine::LinkSpec s = geo.between(a, b);
            view.setLinkSpec(a, b, s.latencySeconds, s.bandwidthBitsPerSecond);
        }
    for (int r = 0; r < geo.regionCount(); ++r) {
        QStringList lines;
        for (int o = 0; o < geo.regionCount(); ++o) {
            const engine::LinkSpec s = geo.regionLink(r, o);
            const QString to = o == r ? tr("inside") : tr("to %1").arg(QString::fromStdString(config.regions[std::size_t(o)].name));
            lines << tr("%1: %2").arg(to, linkFigures(s.latencySeconds, s.bandwidthBitsPerSecond));
        }
        const engine::LinkSpec c = geo.centerLink(r);
        lines << tr("to center: %1").arg(linkFigures(c.latencySeconds, c.bandwidthBitsPerSecond));
        view.setRegionLinkNote(r, lines.join(QLatin1Char('\n')));
    }
    for (int node = 0; node <= edges; ++node) {
        QStringList notes;
        const auto *mile = node > 0 && geo.lastMile(node - 1) ? &*geo.lastMile(node - 1) : nullptr;
        if (mile) {
            QString note = tr("last mile: +%1 ms").arg(mile->latencySeconds * 1e3, 0, 'g', 4);
            if (mile->bandwidthBitsPerSecond > 0)
                note += tr(", at most %1 Mb/s").arg(mile->bandwidthBitsPerSecond / 1e6, 0, 'g', 4);
            if (mile->lossRate > 0)
                note += tr(", %1 % loss").arg(mile->lossRate * 100, 0, 'g', 3);
            notes << note;
        }
        // links.node_interfaces: one line each way that all the node's links share.
        if (const double rate = geo.interfaceBitsPerSecond(node); rate > 0)
            notes << tr("interface: %1 Mb/s each way, shared by its links").arg(rate / 1e6, 0, 'g', 6);
        // A synaptic edge under local updates sends its moves, not
        // gradients: what its links carry means something else (README
        // "Cluster config"; other strategies ignore the key).
        if (node > 0 && config.strategy == "synaptic" && config.localUpdatesAt(node - 1))
            notes << tr("local updates: takes its own optimizer steps, sends its moves");
        view.setNodeLinkNote(node, notes.join(QLatin1Char('\n')));
    }
}

} // namespace synaptic::ui
