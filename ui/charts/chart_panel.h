#pragma once

#include <QWidget>

class QLabel;
class QSlider;
class QComboBox;
class QStackedWidget;
class QToolButton;

namespace synaptic::ui {

class TimeSeriesChart;

// A TimeSeriesChart with a compact toolbar above it: smoothing, x-axis clock,
// reset zoom and export. Results of exports go out through message() for the
// main window's status bar. GUI thread only.
class ChartPanel : public QWidget {
    Q_OBJECT
public:
    // Takes ownership of chart.
    explicit ChartPanel(TimeSeriesChart *chart, QWidget *parent = nullptr);

    TimeSeriesChart *chart() const { return m_chart; }
    // Shows this text instead of the chart (e.g. "Inference charts appear once the inference
    // engine runs"); empty text shows the chart again.
    void setPlaceholder(const QString &text);

Q_SIGNALS:
    void message(const QString &text);

private:
    void onSmoothingSlider(int value);
    void exportTo(const QString &caption, const QString &filter, const QString &suffix,
                  QString (TimeSeriesChart::*write)(const QString &));

    TimeSeriesChart *m_chart;
    QWidget *m_toolbar;
    QSlider *m_smoothing;
    QLabel *m_smoothingValue;
    QComboBox *m_xAxis;
    QToolButton *m_resetZoom;
    QStackedWidget *m_stack;
    QLabel *m_placeholder;
};

} // namespace synaptic::ui
