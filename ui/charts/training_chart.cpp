#include "training_chart.h"

#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

TrainingChart::TrainingChart(QWidget *parent)
    : QChartView(new QChart, parent), m_loss(new QLineSeries), m_accuracy(new QLineSeries),
      m_exitAccuracy(new QLineSeries), m_stepAxis(new QValueAxis), m_lossAxis(new QValueAxis),
      m_accuracyAxis(new QValueAxis) {
    setRenderHint(QPainter::Antialiasing);
    QChart *c = chart();
    c->setTitle("Training on Fashion-MNIST");
    c->legend()->setAlignment(Qt::AlignBottom);
    m_loss->setName("training loss");
    m_accuracy->setName("test accuracy");
    m_exitAccuracy->setName("early-exit head accuracy");
    c->addSeries(m_loss);
    c->addSeries(m_accuracy);
    c->addSeries(m_exitAccuracy);

    m_stepAxis->setTitleText("optimizer step");
    m_stepAxis->setLabelFormat("%d");
    m_lossAxis->setTitleText("cross-entropy loss");
    m_lossAxis->setLabelFormat("%.2f");
    m_accuracyAxis->setTitleText("test accuracy (fraction)");
    m_accuracyAxis->setRange(0.0, 1.0);
    m_accuracyAxis->setLabelFormat("%.2f");
    // One grid only (the loss axis's); two unaligned grids read as noise.
    m_accuracyAxis->setGridLineVisible(false);
    m_accuracyAxis->setTickCount(6);
    c->addAxis(m_stepAxis, Qt::AlignBottom);
    c->addAxis(m_lossAxis, Qt::AlignLeft);
    c->addAxis(m_accuracyAxis, Qt::AlignRight);
    for (QLineSeries *s : {m_loss, m_accuracy, m_exitAccuracy})
        s->attachAxis(m_stepAxis);
    m_loss->attachAxis(m_lossAxis);
    m_accuracy->attachAxis(m_accuracyAxis);
    m_exitAccuracy->attachAxis(m_accuracyAxis);
    styleSeries();
    clear();
}

void TrainingChart::styleSeries() {
    // Fixed colours that read on both the dark and the light theme.
    m_loss->setPen(QPen(QColor(0xf2, 0x8e, 0x2b), 2));
    m_accuracy->setPen(QPen(QColor(0x4e, 0x9a, 0xf1), 2.5));
    QPen exitPen(QColor(0x59, 0xc2, 0x8a), 2, Qt::DashLine);
    m_exitAccuracy->setPen(exitPen);
    m_accuracy->setPointsVisible(true);
    m_exitAccuracy->setPointsVisible(true);
}

void TrainingChart::setChartTheme(QChart::ChartTheme theme) {
    chart()->setTheme(theme);
    // setTheme() resets series pens; ours are chosen for both themes.
    styleSeries();
}

void TrainingChart::clear() {
    m_lossPoints.clear();
    m_accuracyPoints.clear();
    m_exitAccuracyPoints.clear();
    m_maxLoss = 0;
    m_loss->clear();
    m_accuracy->clear();
    m_exitAccuracy->clear();
    m_stepAxis->setRange(0, 100);
    m_lossAxis->setRange(0, 1);
    m_accuracyAxis->setRange(0, 1);
}

void TrainingChart::append(const QVector<engine::TrainProgress> &batch) {
    bool lossChanged = false;
    bool accuracyChanged = false;
    for (const auto &p : batch) {
        if (p.kind == engine::TrainProgress::Kind::Step) {
            m_lossPoints.append(QPointF(double(p.step), p.loss));
            m_maxLoss = std::max(m_maxLoss, p.loss);
            lossChanged = true;
        } else if (p.testAccuracy >= 0 &&
                   (m_accuracyPoints.isEmpty() || m_accuracyPoints.last().x() < double(p.step))) {
            m_accuracyPoints.append(QPointF(double(p.step), p.testAccuracy));
            m_exitAccuracyPoints.append(QPointF(double(p.step), p.exitTestAccuracy));
            accuracyChanged = true;
        }
    }
    if (lossChanged)
        m_loss->replace(m_lossPoints);
    if (accuracyChanged) {
        m_accuracy->replace(m_accuracyPoints);
        m_exitAccuracy->replace(m_exitAccuracyPoints);
    }
    if (lossChanged || accuracyChanged)
        rescale();
}

void TrainingChart::rescale() {
    double maxStep = 100;
    if (!m_lossPoints.isEmpty())
        maxStep = std::max(maxStep, m_lossPoints.last().x());
    if (!m_accuracyPoints.isEmpty())
        maxStep = std::max(maxStep, m_accuracyPoints.last().x());
    m_stepAxis->setRange(0, maxStep);
    m_stepAxis->applyNiceNumbers();
    m_lossAxis->setRange(0, std::max(0.5, m_maxLoss * 1.05));
    m_lossAxis->applyNiceNumbers();
    // Accuracy zooms to the data (down to the 0.1 below its lowest point) so
    // the last percent of progress stays visible; 1.0 stays the top.
    double minAccuracy = 1.0;
    for (const auto &points : {m_accuracyPoints, m_exitAccuracyPoints})
        for (const QPointF &p : points)
            minAccuracy = std::min(minAccuracy, p.y());
    const double low = std::clamp(std::floor(minAccuracy * 10.0 - 1e-9) / 10.0, 0.0, 0.9);
    m_accuracyAxis->setRange(low, 1.0);
    // Ticks every 0.05 on a zoomed axis, every 0.1 on a wide one.
    const double tickStep = 1.0 - low <= 0.5 ? 0.05 : 0.1;
    m_accuracyAxis->setTickCount(int(std::lround((1.0 - low) / tickStep)) + 1);
}

} // namespace synaptic::ui
