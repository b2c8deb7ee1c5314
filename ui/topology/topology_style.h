#pragma once

#include <QColor>
#include <QPen>
#include <QString>

namespace synaptic::ui {

// How the topology view encodes state as colour and line: one place, so the
// legend, the items and the tests agree. Node colours are fixed (not from the
// palette) because they carry meaning; they read on both the dark and light theme.

// Fill of an edge by lease mode: "training", "catching_up", "read_only",
// "down"; anything else is "unknown" (grey, before the engine reports).
QColor modeColor(const QString &mode);
QString modeLabel(const QString &mode); // translated, for tooltips
QColor centerColor(bool up);

// A link's pen. Width 1–8 px on a log scale relative to the busiest link
// (three decades down is the thinnest), colour from blue (quiet) through
// magenta and red to orange (busiest); an idle link is thin grey, a down link
// dashed red whatever its traffic.
QPen linkPenFor(double bytesPerSecond, double busiestBytesPerSecond, bool down);
QColor idleLinkColor();
QColor downLinkColor();

// "0 B/s", "512 B/s", "1.2 MB/s": decimal units, as link bandwidths are quoted.
QString formatRate(double bytesPerSecond);

} // namespace synaptic::ui
