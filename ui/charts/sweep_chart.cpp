#include "sweep_chart.h"

#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace synaptic::ui {

SweepChart::SweepChart(QWidget *parent)
    : QChartView(parent), m_curve(new QLineSeries), m_marker(new QScatterSeries), m_x(new QValueAxis),
      m_y(new QValueAxis) {
    auto *chart = new QChart;
    chart->setTitle(tr("Threshold sweep (validation images)"));
    m_curve->setName(tr("accuracy vs edge share"));
    m_curve->setPointsVisible(true);
    m_marker->setName(tr("operating point"));
    m_marker->setMarkerSize(12);
    chart->addSeries(m_curve);
    chart->addSeries(m_marker);
    m_x->setTitleText(tr("answered at the edge (fraction)"));
    m_x->setRange(0, 1);
    m_y->setTitleText(tr("accuracy (fraction)"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (auto *s : {static_cast<QXYSeries *>(m_curve), static_cast<QXYSeries *>(m_marker)}) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
}

void SweepChart::setSweep(quint64 version, const QVector<double> &thresholds, const QVector<double> &edgeShare,
                          const QVector<double> &accuracy) {
    const auto n = std::min({thresholds.size(), edgeShare.size(), accuracy.size()});
    m_version = version;
    m_thresholds = thresholds.mid(0, n);
    m_share = edgeShare.mid(0, n);
    m_accuracy = accuracy.mid(0, n);
    redraw();
}

void SweepChart::setOperatingThreshold(double threshold) {
    m_threshold = threshold;
    redraw();
}

void SweepChart::clear() {
    m_thresholds.clear();
    m_share.clear();
    m_accuracy.clear();
    m_version = 0;
    redraw();
}

QPointF SweepChart::operatingPoint() const {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (m_thresholds.isEmpty())
        return {nan, nan};
    // Thresholds ascend; interpolate between the two around the knob.
    for (qsizetype i = 0; i + 1 < m_thresholds.size(); ++i) {
        const double a = m_thresholds[i], b = m_thresholds[i + 1];
        if (m_threshold >= a && m_threshold <= b) {
            // A threshold of 1 sends everything to the center: a jump, not a
            // slope, so below 1 the point stays at the lower neighbour.
            if (b >= 1.0 && m_threshold < 1.0)
                return {m_share[i], m_accuracy[i]};
            const double f = b > a ? (m_threshold - a) / (b - a) : 0;
            return {m_share[i] + f * (m_share[i + 1] - m_share[i]), m_accuracy[i] + f * (m_accuracy[i + 1] - m_accuracy[i])};
        }
    }
    const qsizetype k = m_threshold < m_thresholds.front() ? 0 : m_thresholds.size() - 1;
    return {m_share[k], m_accuracy[k]};
}

void SweepChart::redraw() {
    QList<QPointF> points;
    double lo = 1, hi = 0;
    for (qsizetype i = 0; i < m_thresholds.size(); ++i) {
        if (!std::isfinite(m_share[i]) || !std::isfinite(m_accuracy[i]))
            continue;
        points << QPointF(m_share[i], m_accuracy[i]);
        lo = std::min(lo, m_accuracy[i]);
        hi = std::max(hi, m_accuracy[i]);
    }
    m_curve->replace(points);
    const QPointF op = operatingPoint();
    m_marker->clear();
    if (std::isfinite(op.x()) && std::isfinite(op.y()))
        m_marker->append(op);
    if (hi >= lo)
        m_y->setRange(std::max(0.0, lo - 0.02), std::min(1.0, hi + 0.02));
    chart()->setTitle(m_thresholds.isEmpty()
                          ? tr("Threshold sweep: waiting for the first edge image")
                          : tr("Edge image v%1 at threshold %2: %3 % at the edge, accuracy %4")
                                .arg(m_version)
                                .arg(m_threshold, 0, 'f', 2)
                                .arg(100 * op.x(), 0, 'f', 1)
                                .arg(op.y(), 0, 'f', 4));
}

} // namespace synaptic::ui
