#include "cluster_chart.h"

#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <cmath>

namespace synaptic::ui {

ClusterChart::ClusterChart(QWidget *parent)
    : QChartView(parent), m_timeAxis(new QValueAxis), m_accuracyAxis(new QValueAxis), m_lossAxis(new QValueAxis) {
    auto *c = new QChart;
    c->setTitle(tr("Accuracy and loss"));
    m_timeAxis->setTitleText(tr("virtual time (s)"));
    m_accuracyAxis->setTitleText(tr("test accuracy (fraction)"));
    m_lossAxis->setTitleText(tr("training loss (cross-entropy)"));
    m_accuracyAxis->setRange(0, 1);
    m_lossAxis->setRange(0, 0.5);
    m_timeAxis->setRange(0, 1);
    c->addAxis(m_timeAxis, Qt::AlignBottom);
    c->addAxis(m_accuracyAxis, Qt::AlignLeft);
    c->addAxis(m_lossAxis, Qt::AlignRight);
    c->legend()->setAlignment(Qt::AlignBottom);
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(480, 300);
}

void ClusterChart::clear() {
    for (auto &c : m_series) {
        c.points.clear();
        c.series->clear();
    }
    m_maxTime = 1;
    m_maxLoss = 0.5;
    m_minAccuracy = 1;
}

ClusterChart::Curve &ClusterChart::curve(const QString &name, bool loss) {
    auto it = m_series.find(name);
    if (it != m_series.end())
        return *it;
    Curve c;
    c.series = new QLineSeries;
    c.series->setName(name);
    chart()->addSeries(c.series);
    c.series->attachAxis(m_timeAxis);
    c.series->attachAxis(loss ? m_lossAxis : m_accuracyAxis);
    if (loss) {
        QPen pen = c.series->pen();
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.2);
        c.series->setPen(pen);
    }
    return *m_series.insert(name, c);
}

void ClusterChart::addMetric(const engine::MetricEvent &m) {
    const QString scope = QString::fromStdString(m.scope);
    if (scope.endsWith(QLatin1String(":full")))
        return; // the final full-test-set figure is a single point, shown in the status bar
    const QString who = scope.startsWith(QLatin1String("region:")) ? scope.mid(7) : tr("global");
    if (std::isfinite(m.accuracy)) {
        auto &c = curve(tr("accuracy %1").arg(who), false);
        c.points.append({m.time, m.accuracy});
        c.dirty = true;
        if (m.time > 0)
            m_minAccuracy = std::min(m_minAccuracy, m.accuracy);
    }
    if (std::isfinite(m.loss) && scope.startsWith(QLatin1String("region:"))) {
        auto &c = curve(tr("loss %1").arg(who), true);
        c.points.append({m.time, m.loss});
        c.dirty = true;
        m_maxLoss = std::max(m_maxLoss, m.loss);
    }
    m_maxTime = std::max(m_maxTime, m.time);
}

void ClusterChart::flush() {
    for (auto &c : m_series)
        if (c.dirty) {
            c.series->replace(c.points);
            c.dirty = false;
        }
    m_timeAxis->setRange(0, m_maxTime);
    m_timeAxis->applyNiceNumbers(); // round ticks, not 0.35, 0.69, ...
    m_lossAxis->setRange(0, std::ceil(m_maxLoss * 10) / 10);
    m_accuracyAxis->setRange(std::max(0.0, std::floor(std::min(m_minAccuracy, 0.9) * 10) / 10), 1.0);
}

void ClusterChart::setChartTheme(QChart::ChartTheme theme) { chart()->setTheme(theme); }

qsizetype ClusterChart::pointCount(const QString &name) const {
    const auto it = m_series.find(name);
    return it == m_series.end() ? 0 : it->points.size();
}

} // namespace synaptic::ui
