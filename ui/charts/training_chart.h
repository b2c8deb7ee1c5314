#pragma once

#include "ui/metatypes.h"

#include <QChartView>
#include <QPointF>

#include <QChart>

class QLineSeries;
class QValueAxis;

namespace synaptic::ui {

// Live loss and test-accuracy curves of one training run, against optimizer
// steps. All Qt Charts code lives in ui/charts (DESIGN.md §6). Points are
// appended in batches and pushed with one replace() per series per batch.
class TrainingChart : public QChartView {
    Q_OBJECT
public:
    explicit TrainingChart(QWidget *parent = nullptr);

    void clear();
    void append(const QVector<engine::TrainProgress> &batch);
    void setChartTheme(QChart::ChartTheme theme);

    // For tests and the status bar: how many points each curve holds.
    qsizetype lossPointCount() const { return m_lossPoints.size(); }
    qsizetype accuracyPointCount() const { return m_accuracyPoints.size(); }
    QLineSeries *lossSeries() const { return m_loss; }
    QLineSeries *accuracySeries() const { return m_accuracy; }

private:
    void styleSeries();
    void rescale();

    QLineSeries *m_loss;
    QLineSeries *m_accuracy;
    QLineSeries *m_exitAccuracy;
    QValueAxis *m_stepAxis;
    QValueAxis *m_lossAxis;
    QValueAxis *m_accuracyAxis;
    QList<QPointF> m_lossPoints;
    QList<QPointF> m_accuracyPoints;
    QList<QPointF> m_exitAccuracyPoints;
    double m_maxLoss = 0;
};

} // namespace synaptic::ui
