#include "time_series_chart.h"

#include <QElapsedTimer>

#include <QKeyEvent>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

namespace {

constexpr qsizetype kLightPointLimit = 1500;

// Colour-blind-friendly Tableau 10; series take them in creation order so a
// curve keeps its colour for the life of the chart.
const QColor kPalette[] = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                           0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};

// Dynamic ticks make one label item per interval: change range and interval in
// the order that never pairs a wide range with a fine interval, even briefly.
void setTicks(QValueAxis *axis, double lo, double hi, double step) {
    const bool coarser = step >= axis->tickInterval();
    if (coarser)
        axis->setTickInterval(step);
    if (axis->min() != lo || axis->max() != hi)
        axis->setRange(lo, hi);
    if (!coarser)
        axis->setTickInterval(step);
}

} // namespace

TimeSeriesChart::TimeSeriesChart(const QString &title, QWidget *parent)
    : QChartView(new QChart, parent), m_xAxis(new QValueAxis) {
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::HorizontalRubberBand);
    setFocusPolicy(Qt::StrongFocus); // arrow keys pan, Home resets
    chart()->setTitle(title);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    m_xAxis->setTickType(QValueAxis::TicksDynamic);
    m_xAxis->setTickAnchor(0);
    m_xAxis->setLabelFormat(QStringLiteral("%.10g")); // steps print whole, ticks lose float noise
    chart()->addAxis(m_xAxis, Qt::AlignBottom);
    setXAxisKind(XAxisKind::Steps);
    connect(chart(), &QChart::plotAreaChanged, this, &TimeSeriesChart::onPlotAreaChanged);
}

TimeSeriesChart::~TimeSeriesChart() = default;

int TimeSeriesChart::addValueAxis(const QString &title, Qt::Alignment side, double fixedMin,
                                  double fixedMax) {
    auto *axis = new QValueAxis;
    axis->setTitleText(title);
    axis->setLabelFormat(QStringLiteral("%.4g"));
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    // One grid only (the first axis's); unaligned grids read as noise.
    axis->setGridLineVisible(m_axes.isEmpty());
    chart()->addAxis(axis, side);
    m_axes.append(Axis{axis, fixedMin, fixedMax});
    updateYAxes();
    return int(m_axes.size() - 1);
}

TimeSeriesChart::Series &TimeSeriesChart::seriesFor(const QString &name, int axisId, bool dashed) {
    for (Series &s : m_series)
        if (s.name == name)
            return s;
    if (axisId < 0 || axisId >= m_axes.size())
        axisId = m_axes.isEmpty() ? addValueAxis(tr("value"), Qt::AlignLeft) : 0;
    Series &s = m_series.emplace_back();
    s.name = name;
    s.axisId = axisId;
    s.dashed = dashed;
    s.color = kPalette[(m_series.size() - 1) % std::size(kPalette)];
    s.ema = EmaState(m_smoothing);
    s.raw = new QLineSeries;
    s.smooth = new QLineSeries;
    for (QLineSeries *line : {s.raw, s.smooth}) {
        line->setName(name);
        chart()->addSeries(line);
        line->attachAxis(m_xAxis);
        line->attachAxis(m_axes[axisId].axis);
    }
    style(s);
    return s;
}

const TimeSeriesChart::Series *TimeSeriesChart::find(const QString &name) const {
    for (const Series &s : m_series)
        if (s.name == name)
            return &s;
    return nullptr;
}

void TimeSeriesChart::addPoint(const QString &series, int axisId, const SamplePoint &p, bool dashed) {
    Series &s = seriesFor(series, axisId, dashed);
    s.x[int(XAxisKind::Steps)].append(p.steps);
    s.x[int(XAxisKind::VirtualSeconds)].append(p.virtualSeconds);
    s.x[int(XAxisKind::WallSeconds)].append(p.wallSeconds);
    s.value.append(p.value);
    s.smoothed.append(s.ema.next(p.value));
    s.dirty = true;
    m_dataDirty = true;
}

bool TimeSeriesChart::flush(double budgetMs) {
    m_flushQueued = false;
    if (!m_dataDirty && !m_viewDirty)
        return true; // the common idle case at 25 Hz
    // A dock behind another dock's tab is "visible" but has no visible region.
    if (m_lazyWhenHidden && (!isVisible() || viewport()->visibleRegion().isEmpty()))
        return false; // showEvent() or whoever reveals it (a dock's visibilityChanged) catches up
    QElapsedTimer clock;
    clock.start();
    if (!m_zoomed) {
        const QPair<double, double> range = followedRange();
        if (range != m_visible) {
            m_visible = range;
            m_viewDirty = true;
        }
    }
    const int columns = plotColumns();
    if (m_viewDirty) {
        const NiceRange r = niceRange(m_visible.first, m_visible.second);
        setTicks(m_xAxis, m_visible.first, m_visible.second, r.step);
        m_columns = columns;
        for (Series &s : m_series)
            s.dirty = true; // every line is re-thinned for the new range
        m_viewDirty = false;
    }
    bool done = true;
    const std::size_t n = m_series.size();
    for (std::size_t k = 0; k < n; ++k) {
        Series &s = m_series[(m_nextRebuild + k) % n];
        if (!s.dirty)
            continue;
        if (double(clock.nsecsElapsed()) / 1e6 >= budgetMs) {
            m_nextRebuild = (m_nextRebuild + k) % n; // resume here next time
            done = false;
            break;
        }
        rebuild(s, columns);
    }
    updateYAxes();
    // Wide lines cost several times as much to paint as one-pixel ones: keep
    // them while the chart is light (see style()).
    qsizetype drawn = 0;
    for (const Series &s : m_series)
        drawn += (s.raw ? s.raw->count() : 0) + (s.smooth && s.smooth->isVisible() ? s.smooth->count() : 0);
    const bool heavy = drawn >= kLightPointLimit;
    if (heavy != m_heavy) {
        m_heavy = heavy;
        for (Series &s : m_series)
            style(s);
    }
    m_dataDirty = !done;
    return done;
}

void TimeSeriesChart::showEvent(QShowEvent *event) {
    QChartView::showEvent(event);
    if (m_dataDirty || m_viewDirty)
        flush();
}

QPair<double, double> TimeSeriesChart::followedRange() const {
    double lo = 0, hi = 0;
    for (const Series &s : m_series) {
        if (xs(s).isEmpty())
            continue;
        lo = std::min(lo, xs(s).first());
        hi = std::max(hi, xs(s).last());
    }
    const NiceRange r = niceRange(lo, hi > lo ? hi : lo + 1);
    return {r.lo, r.hi};
}

int TimeSeriesChart::plotColumns() const {
    const double w = chart()->plotArea().width();
    return std::max(16, int(w > 1 ? w : width()));
}

void TimeSeriesChart::rebuild(Series &s, int columns) {
    s.dirty = false;
    s.yMin = s.yMax = qQNaN();
    const QVector<double> &x = xs(s);
    const auto [lo, hi] = m_visible;
    auto thinned = [&](const QVector<double> &y) {
        // A bucket per four pixel columns keeping first/min/max/last still
        // draws every peak; Qt Charts' cost (it strokes each line's outline on
        // every update) and the paint grow with the points, not the pixels.
        const QVector<int> idx = thinIndices(x, y, lo, hi, std::max(16, columns / 4));
        QList<QPointF> points;
        points.reserve(idx.size());
        for (int i : idx) {
            if (!std::isfinite(y[i]))
                continue; // a NaN point would break the whole polyline in Qt Charts
            points.append(QPointF(x[i], y[i]));
            if (x[i] >= lo && x[i] <= hi) {
                s.yMin = std::isnan(s.yMin) ? y[i] : std::min(s.yMin, y[i]);
                s.yMax = std::isnan(s.yMax) ? y[i] : std::max(s.yMax, y[i]);
            }
        }
        return points;
    };
    s.raw->replace(thinned(s.value));
    if (m_smoothing > 0)
        s.smooth->replace(thinned(s.smoothed));
    else if (s.smooth->count() > 0)
        s.smooth->clear();
}

void TimeSeriesChart::updateYAxes() {
    for (int id = 0; id < m_axes.size(); ++id) {
        const Axis &a = m_axes[id];
        double lo = qQNaN(), hi = qQNaN();
        for (const Series &s : m_series) {
            if (s.axisId != id || std::isnan(s.yMin))
                continue;
            lo = std::isnan(lo) ? s.yMin : std::min(lo, s.yMin);
            hi = std::isnan(hi) ? s.yMax : std::max(hi, s.yMax);
        }
        if (std::isfinite(a.fixedMin))
            lo = a.fixedMin;
        if (std::isfinite(a.fixedMax))
            hi = a.fixedMax;
        if (std::isnan(lo) || std::isnan(hi)) {
            lo = std::isnan(lo) ? (std::isnan(hi) ? 0 : hi - 1) : lo;
            hi = std::isnan(hi) ? lo + 1 : hi;
        }
        const NiceRange r = niceRange(lo, hi);
        setTicks(a.axis, std::isfinite(a.fixedMin) ? a.fixedMin : r.lo,
                 std::isfinite(a.fixedMax) ? a.fixedMax : r.hi, r.step);
    }
}

void TimeSeriesChart::style(Series &s) {
    const bool dim = !m_highlight.isEmpty() && !s.name.contains(m_highlight, Qt::CaseInsensitive);
    const bool smoothing = m_smoothing > 0;
    auto pen = [&](double width, double alpha) {
        QColor c = s.color;
        c.setAlphaF(float(alpha * (dim ? 0.2 : 1.0)));
        // A heavy chart (thousands of points) draws one-pixel lines: Qt paints
        // those with its cosmetic line rasteriser, several times faster than
        // stroking wide lines joint by joint (bench/ui_refresh).
        QPen p(c, m_heavy ? 1.0 : width);
        if (s.dashed)
            p.setStyle(Qt::DashLine);
        return p;
    };
    s.raw->setPen(pen(smoothing ? 1.2 : 2, smoothing ? 0.25 : 1));
    s.smooth->setPen(pen(2, 1));
    s.smooth->setVisible(smoothing);
    // The legend names each series once: the opaque line stands for it.
    for (QLegendMarker *m : chart()->legend()->markers(s.raw))
        m->setVisible(!smoothing);
    for (QLegendMarker *m : chart()->legend()->markers(s.smooth))
        m->setVisible(smoothing);
}

void TimeSeriesChart::clear() {
    for (Series &s : m_series) {
        chart()->removeSeries(s.raw);
        chart()->removeSeries(s.smooth);
        delete s.raw;
        delete s.smooth;
    }
    m_series.clear();
    m_dataDirty = false;
    resetZoom();
}

void TimeSeriesChart::setXAxisKind(XAxisKind kind) {
    static const char *const titles[] = {QT_TR_NOOP("steps"), QT_TR_NOOP("virtual time (s)"),
                                         QT_TR_NOOP("wall time (s)")};
    m_kind = kind;
    m_xAxis->setTitleText(tr(titles[int(kind)]));
    // A zoom window in one clock means nothing in another.
    resetZoom();
}

void TimeSeriesChart::setSmoothing(double weight) {
    m_smoothing = std::clamp(std::isfinite(weight) ? weight : 0.0, 0.0, 0.999);
    for (Series &s : m_series) {
        // Same steps as emaSmooth(), but keeping the state so later points continue the curve.
        s.ema = EmaState(m_smoothing);
        for (qsizetype i = 0; i < s.value.size(); ++i)
            s.smoothed[i] = s.ema.next(s.value[i]);
        style(s);
    }
    viewChanged();
}

void TimeSeriesChart::setHighlighted(const QString &seriesSubstring) {
    m_highlight = seriesSubstring;
    for (Series &s : m_series)
        style(s);
}

void TimeSeriesChart::setChartTheme(QChart::ChartTheme theme) {
    chart()->setTheme(theme);
    // setTheme() resets pens and grids; ours carry meaning (colour per series, faint raw).
    for (const Axis &a : std::as_const(m_axes))
        a.axis->setGridLineVisible(&a == &m_axes.first());
    for (Series &s : m_series)
        style(s);
}

void TimeSeriesChart::setZoomed(bool zoomed) {
    if (m_zoomed == zoomed)
        return;
    m_zoomed = zoomed;
    Q_EMIT zoomChanged(zoomed);
}

void TimeSeriesChart::viewChanged() {
    m_viewDirty = true;
    flush();
}

void TimeSeriesChart::resetZoom() {
    setZoomed(false);
    viewChanged();
}

void TimeSeriesChart::zoomX(double xMin, double xMax) {
    // Below ~1e-12 of the magnitude, doubles cannot tell the ticks apart.
    const double scale = std::max({1.0, std::abs(xMin), std::abs(xMax)});
    if (!std::isfinite(xMin) || !std::isfinite(xMax) || !(xMax - xMin > 1e-12 * scale))
        return;
    m_visible = {xMin, xMax};
    setZoomed(true);
    viewChanged();
}

void TimeSeriesChart::pan(double fraction) {
    const double shift = fraction * (m_visible.second - m_visible.first);
    zoomX(m_visible.first + shift, m_visible.second + shift);
}

void TimeSeriesChart::onPlotAreaChanged() {
    // Rethin only when the width changed noticeably: axis labels resizing the plot
    // by a few pixels must not start a redraw loop.
    if (m_flushQueued || std::abs(plotColumns() - m_columns) <= m_columns / 8)
        return;
    m_viewDirty = true;
    m_flushQueued = true;
    QMetaObject::invokeMethod(this, [this] { flush(); }, Qt::QueuedConnection);
}

QStringList TimeSeriesChart::seriesNames() const {
    QStringList names;
    for (const Series &s : m_series)
        names.append(s.name);
    return names;
}

qsizetype TimeSeriesChart::rawPointCount(const QString &series) const {
    const Series *s = find(series);
    return s ? s->value.size() : 0;
}

qsizetype TimeSeriesChart::drawnPointCount(const QString &series) const {
    const Series *s = find(series);
    return s ? s->raw->count() : 0;
}

QList<QPointF> TimeSeriesChart::drawnPoints(const QString &series) const {
    const Series *s = find(series);
    return s ? s->raw->points() : QList<QPointF>();
}

QVector<double> TimeSeriesChart::smoothedValues(const QString &series) const {
    const Series *s = find(series);
    return s ? s->smoothed : QVector<double>();
}

} // namespace synaptic::ui
