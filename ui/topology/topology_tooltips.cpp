#include "topology_tooltips.h"

#include "topology_style.h"
#include "topology_text.h"

#include <QStringList>

namespace synaptic::ui {

namespace {
using topology_text::tr;
} // namespace

QString nodeToolTip(const QString &name, const QString &regionName, const QString &state, bool partitioned,
                    double inBytesPerSecond, double outBytesPerSecond, const QString &details) {
    QStringList lines{name};
    if (regionName.isEmpty()) {
        lines << tr("state: %1").arg(state);
    } else {
        lines << tr("region: %1").arg(regionName) << tr("mode: %1").arg(state);
        if (partitioned)
            lines << tr("region partitioned");
    }
    lines << tr("in: %1, out: %2").arg(formatRate(inBytesPerSecond), formatRate(outBytesPerSecond));
    if (!details.isEmpty())
        lines << details;
    return lines.join(QLatin1Char('\n'));
}

QString linkToolTip(const QString &nameA, const QString &nameB, double aToB, double bToA, bool down,
                    const QString &figures) {
    QStringList lines{tr("%1 ↔ %2: %3").arg(nameA, nameB, formatRate(aToB + bToA)),
                      tr("%1 → %2: %3").arg(nameA, nameB, formatRate(aToB)),
                      tr("%1 → %2: %3").arg(nameB, nameA, formatRate(bToA))};
    if (!figures.isEmpty())
        lines << tr("link: %1").arg(figures);
    if (down)
        lines << tr("link down (partitioned)");
    return lines.join(QLatin1Char('\n'));
}

QString regionToolTip(const QString &name, int edges, bool partitioned, const QString &links) {
    QStringList lines{name, tr("%n edge(s)", edges)};
    if (!links.isEmpty())
        lines << links;
    if (partitioned)
        lines << tr("partitioned: every link out of the region is down");
    return lines.join(QLatin1Char('\n'));
}

QString linkFigures(double latencySeconds, double bandwidthBitsPerSecond) {
    const double mbps = bandwidthBitsPerSecond / 1e6;
    const QString bandwidth = mbps >= 1000 ? tr("%1 Gb/s").arg(mbps / 1000, 0, 'g', 4) : tr("%1 Mb/s").arg(mbps, 0, 'g', 4);
    return tr("%1 ms one way, %2").arg(latencySeconds * 1e3, 0, 'g', 4).arg(bandwidth);
}

} // namespace synaptic::ui
