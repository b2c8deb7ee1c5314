#pragma once

#include <QString>

namespace synaptic::ui {

// What hovering shows, as plain multi-line text (QToolTip breaks lines at
// '\n'). Free functions over plain values so the wording lives in one place.

// An edge (regionName non-empty) or the center (regionName empty, state "up"/"down").
QString nodeToolTip(const QString &name, const QString &regionName, const QString &state, bool partitioned,
                    double inBytesPerSecond, double outBytesPerSecond, const QString &details);
QString linkToolTip(const QString &nameA, const QString &nameB, double aToB, double bToA, bool down);
QString regionToolTip(const QString &name, int edges, bool partitioned);

} // namespace synaptic::ui
