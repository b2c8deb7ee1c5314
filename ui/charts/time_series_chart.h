#pragma once

#include "series_math.h"

#include <QChart>
#include <QChartView>
#include <QColor>
#include <QPair>
#include <QStringList>
#include <QVector>
#include <QtNumeric>

#include <vector>

class QLineSeries;
class QValueAxis;

namespace synaptic::ui {

enum class XAxisKind { Steps, VirtualSeconds, WallSeconds };

struct SamplePoint {
    double steps = 0;
    double virtualSeconds = 0;
    double wallSeconds = 0;
    double value = 0;
};

// A live line chart of named series against steps, virtual time or wall time.
// All Qt Charts code lives in ui/charts (DESIGN.md §6). The full data stays in
// plain vectors; each QLineSeries only holds the visible range thinned to about
// one column per pixel, so an hour of data still redraws fast. GUI thread only.
class TimeSeriesChart : public QChartView {
    Q_OBJECT
public:
    explicit TimeSeriesChart(const QString &title, QWidget *parent = nullptr);
    ~TimeSeriesChart() override;

    // A y axis with a unit in its title ("test accuracy (fraction)"); side Qt::AlignLeft or
    // AlignRight. fixedMin/fixedMax NaN = follow the data. Returns an axis id.
    int addValueAxis(const QString &title, Qt::Alignment side, double fixedMin = qQNaN(),
                     double fixedMax = qQNaN());
    // Series are created on first use. dashed = drawn with a dash pattern (e.g. losses).
    // Points of one series must arrive in ascending x (all three clocks).
    void addPoint(const QString &series, int axisId, const SamplePoint &p, bool dashed = false);
    // Pushes buffered points to Qt Charts; call once per GUI batch (e.g. 25 Hz).
    // With a budget, stops rebuilding series once that many milliseconds are
    // spent and carries on with the rest (round robin) at the next flush, so a
    // refresh never blows the frame budget however many series changed.
    // Returns whether everything is drawn.
    bool flush(double budgetMs = qInf());
    // While hidden (a dock behind a tab) skip the Qt-side redraw and catch up
    // when shown: off by default so tests see what flush() drew.
    void setLazyWhenHidden(bool lazy) { m_lazyWhenHidden = lazy; }
    void clear();

    void setXAxisKind(XAxisKind kind); // relabels the x axis with its unit
    XAxisKind xAxisKind() const { return m_kind; }
    void setSmoothing(double weight);  // 0 = raw only; >0: smoothed opaque, raw faint
    double smoothing() const { return m_smoothing; }

    void resetZoom(); // back to following the data
    bool isZoomed() const { return m_zoomed; }
    QPair<double, double> visibleXRange() const { return m_visible; }
    void zoomX(double xMin, double xMax);
    void pan(double fraction); // shift the visible x window by this fraction of its width

    // Each returns an error message naming the file, empty on success.
    QString exportPng(const QString &path);
    QString exportSvg(const QString &path);
    QString exportCsv(const QString &path); // visible x range only

    void setChartTheme(QChart::ChartTheme theme);
    // Series whose name contains this (case-insensitive) stay opaque, others go faint; empty = none.
    void setHighlighted(const QString &seriesSubstring);

    // For tests and benchmarks.
    QStringList seriesNames() const;
    qsizetype rawPointCount(const QString &series) const;
    qsizetype drawnPointCount(const QString &series) const; // after thinning, in the QXYSeries
    QList<QPointF> drawnPoints(const QString &series) const; // the raw line's points
    QVector<double> smoothedValues(const QString &series) const;

Q_SIGNALS:
    void zoomChanged(bool zoomed);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct Axis {
        QValueAxis *axis = nullptr;
        double fixedMin = qQNaN();
        double fixedMax = qQNaN();
    };
    struct Series {
        QString name;
        int axisId = 0;
        bool dashed = false;
        QColor color;
        QVector<double> x[3]; // one column per XAxisKind
        QVector<double> value;
        QVector<double> smoothed;
        EmaState ema;
        QLineSeries *raw = nullptr;
        QLineSeries *smooth = nullptr;
        bool dirty = true;
        double yMin = qQNaN(); // of the drawn points inside the visible range
        double yMax = qQNaN();
    };

    Series &seriesFor(const QString &name, int axisId, bool dashed);
    const Series *find(const QString &name) const;
    const QVector<double> &xs(const Series &s) const { return s.x[int(m_kind)]; }
    QPair<double, double> followedRange() const;
    int plotColumns() const;
    void rebuild(Series &s, int columns);
    void updateYAxes();
    void style(Series &s);
    void setZoomed(bool zoomed);
    void viewChanged(); // the visible range, clock or width changed: redraw everything now
    void onPlotAreaChanged();
    double xAtViewPos(const QPointF &pos) const;

    QValueAxis *m_xAxis;
    QVector<Axis> m_axes; // index = axis id
    std::vector<Series> m_series;
    XAxisKind m_kind = XAxisKind::Steps;
    double m_smoothing = 0;
    QString m_highlight;
    QPair<double, double> m_visible{0, 1};
    bool m_zoomed = false;
    bool m_viewDirty = true;
    bool m_dataDirty = false;
    bool m_flushQueued = false;
    bool m_lazyWhenHidden = false;
    bool m_heavy = false; // thousands of drawn points: no antialiasing, no dashes
    std::size_t m_nextRebuild = 0; // round-robin start for budgeted flushes
    int m_columns = 0; // plot width the series were last thinned for
    bool m_panning = false;
    QPoint m_panLast;
};

} // namespace synaptic::ui
