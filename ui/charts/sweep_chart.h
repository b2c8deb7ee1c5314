#pragma once

#include <QChartView>
#include <QVector>

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace synaptic::ui {

// The early-exit threshold sweep of the latest edge image (issue 6 §3):
// accuracy against the share of requests answered at the edge, one point
// per threshold, measured by the engine on the validation images, with the
// current operating point marked so the operator sees what a change would
// cost before making it. All Qt Charts code stays in ui/charts. GUI thread.
class SweepChart : public QChartView {
    Q_OBJECT
public:
    explicit SweepChart(QWidget *parent = nullptr);

    void setSweep(quint64 version, const QVector<double> &thresholds, const QVector<double> &edgeShare,
                  const QVector<double> &accuracy);
    void setOperatingThreshold(double threshold);
    void clear();

    // The operating point on the curve (interpolated between the sweep's
    // thresholds); NaN when there is no sweep yet. For the label and tests.
    QPointF operatingPoint() const;
    double operatingThreshold() const { return m_threshold; }
    int pointCount() const { return int(m_thresholds.size()); }

private:
    void redraw();

    QLineSeries *m_curve;
    QScatterSeries *m_marker;
    QValueAxis *m_x;
    QValueAxis *m_y;
    QVector<double> m_thresholds, m_share, m_accuracy;
    double m_threshold = 0.85;
    quint64 m_version = 0;
};

} // namespace synaptic::ui
