#pragma once

#include <QString>

namespace synaptic::ui {

// What hovering shows, as plain multi-line text (QToolTip breaks lines at
// '\n'). Free functions over plain values so the wording lives in one place.

// An edge (regionName non-empty) or the center (regionName empty, state "up"/"down").
QString nodeToolTip(const QString &name, const QString &regionName, const QString &state, bool partitioned,
                    double inBytesPerSecond, double outBytesPerSecond, const QString &details);
// `figures`: the link's latency and bandwidth (linkFigures), or empty.
QString linkToolTip(const QString &nameA, const QString &nameB, double aToB, double bToA, bool down,
                    const QString &figures = {});
QString regionToolTip(const QString &name, int edges, bool partitioned, const QString &links = {});
QString linkFigures(double latencySeconds, double bandwidthBitsPerSecond); // "120 ms one way, 100 Mb/s"

} // namespace synaptic::ui
