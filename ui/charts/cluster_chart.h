#pragma once

#include "core/engine/sim/sim_events.h"

#include <QChart>
#include <QChartView>
#include <QHash>
#include <QPointF>

class QLineSeries;
class QValueAxis;

namespace synaptic::ui {

// Test accuracy of the global model (and of each region when evaluated) and
// each region's training loss, against virtual seconds. Metrics are buffered
// and pushed with one replace() per series per flush (DESIGN.md §6); all Qt
// Charts code stays in ui/charts.
class ClusterChart : public QChartView {
    Q_OBJECT
public:
    explicit ClusterChart(QWidget *parent = nullptr);

    void clear();
    void addMetric(const engine::MetricEvent &metric);
    void flush(); // once per GUI batch
    void setChartTheme(QChart::ChartTheme theme);
    int seriesCount() const { return int(m_series.size()); }
    qsizetype pointCount(const QString &name) const;

private:
    struct Curve {
        QLineSeries *series = nullptr;
        QList<QPointF> points;
        bool dirty = false;
    };
    Curve &curve(const QString &name, bool loss);

    QValueAxis *m_timeAxis;
    QValueAxis *m_accuracyAxis;
    QValueAxis *m_lossAxis;
    QHash<QString, Curve> m_series;
    double m_maxTime = 1;
    double m_maxLoss = 0.5;
    double m_minAccuracy = 1;
};

} // namespace synaptic::ui
