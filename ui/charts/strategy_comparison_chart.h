#pragma once

#include <QString>
#include <QVector>

namespace synaptic::ui {

// One evaluation of one strategy in the strategy benchmark. Plain data so the
// chart knows nothing about the report's JSON; byte counts are cumulative.
struct StrategyCurvePoint {
    double virtualSeconds = 0;
    double accuracy = 0;
    double wanBytes = 0;
    double bytesToCenter = 0;
    double totalBytes = 0;
};

struct StrategyCurve {
    QString name;
    QVector<StrategyCurvePoint> points;
};

// Renders two charts side by side into one PNG: test accuracy against
// virtual time (with a dashed line at targetAccuracy) and test accuracy
// against cumulative WAN bytes, one colour per curve in both. The time and
// byte axes are logarithmic because strategies differ 10-1000x, so points
// at t <= 0 (and zero bytes on the right) are left out. Needs a
// QApplication; works on the offscreen platform. Writes atomically; on
// failure returns false and, when error is set, says why.
bool renderStrategyComparison(const QVector<StrategyCurve> &curves, double targetAccuracy, const QString &title,
                              const QString &pngPath, QString *error = nullptr);

} // namespace synaptic::ui
