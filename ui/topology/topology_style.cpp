#include "topology_style.h"

#include "topology_text.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

namespace {

using topology_text::tr;

constexpr double kDecades = 3; // links quieter than 1/1000 of the busiest all get the thinnest pen
constexpr qreal kMaxWidth = 8;

// Hue climbs from blue through violet, magenta and red to orange, as in a
// "hot" colour map, so busier always reads warmer and the busiest (orange)
// stays distinct from the red of a down link. Full saturation throughout: a
// straight RGB blend of blue and orange passes through a grey that reads as idle.
QColor heat(double t) {
    constexpr double kCool = 212, kHot = 390; // degrees; 390 is orange past the wrap
    return QColor::fromHsvF(std::fmod(kCool + t * (kHot - kCool), 360.0) / 360.0, 0.72, 0.92);
}

} // namespace

QColor modeColor(const QString &mode) {
    if (mode == QLatin1String("training"))
        return QColor(0x43, 0xa0, 0x47);
    if (mode == QLatin1String("catching_up"))
        return QColor(0xf0, 0xa0, 0x30);
    if (mode == QLatin1String("read_only"))
        return QColor(0x8e, 0x6f, 0xd0);
    // "left": a live edge process that stopped and said goodbye; as gone as a crashed one.
    if (mode == QLatin1String("down") || mode == QLatin1String("left"))
        return QColor(0x4a, 0x4d, 0x52);
    return QColor(0x8a, 0x8f, 0x98);
}

QString modeLabel(const QString &mode) {
    if (mode == QLatin1String("training"))
        return tr("training");
    if (mode == QLatin1String("catching_up"))
        return tr("catching up");
    if (mode == QLatin1String("read_only"))
        return tr("read-only");
    if (mode == QLatin1String("down"))
        return tr("down");
    if (mode == QLatin1String("left"))
        return tr("down (left the cluster)");
    return tr("unknown");
}

QColor centerColor(bool up) { return up ? QColor(0x26, 0xa6, 0x9a) : modeColor(QStringLiteral("down")); }

QColor idleLinkColor() { return QColor(0x8a, 0x8f, 0x98); }
QColor downLinkColor() { return QColor(0xe5, 0x39, 0x35); }

QPen linkPenFor(double bytesPerSecond, double busiestBytesPerSecond, bool down) {
    if (down) {
        QPen pen(downLinkColor(), 2, Qt::DashLine, Qt::FlatCap);
        pen.setDashPattern({3, 2});
        return pen;
    }
    if (!(bytesPerSecond > 0) || !(busiestBytesPerSecond > 0))
        return QPen(idleLinkColor(), 1, Qt::SolidLine, Qt::RoundCap);
    const double ratio = std::min(1.0, bytesPerSecond / busiestBytesPerSecond);
    const double t = std::clamp(1.0 + std::log10(ratio) / kDecades, 0.0, 1.0);
    return QPen(heat(t), 1 + (kMaxWidth - 1) * t, Qt::SolidLine, Qt::RoundCap);
}

QString formatRate(double bytesPerSecond) {
    static const char *const units[] = {QT_TRANSLATE_NOOP("synaptic::ui::TopologyView", "B/s"),
                                        QT_TRANSLATE_NOOP("synaptic::ui::TopologyView", "kB/s"),
                                        QT_TRANSLATE_NOOP("synaptic::ui::TopologyView", "MB/s"),
                                        QT_TRANSLATE_NOOP("synaptic::ui::TopologyView", "GB/s"),
                                        QT_TRANSLATE_NOOP("synaptic::ui::TopologyView", "TB/s")};
    double value = bytesPerSecond > 0 ? bytesPerSecond : 0;
    int unit = 0;
    while (value >= 1000 && unit < 4) {
        value /= 1000;
        ++unit;
    }
    const int precision = (unit == 0 || value >= 100) ? 0 : 1;
    return QStringLiteral("%1 %2").arg(QLocale().toString(value, 'f', precision), tr(units[unit]));
}

} // namespace synaptic::ui
