// TimeSeriesChart's mouse and keyboard handling (zoom, pan, reset).
#include "time_series_chart.h"

#include <QKeyEvent>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

// ---- Mouse and keyboard: everything ends in zoomX(), pan() or resetZoom(). ----

double TimeSeriesChart::xAtViewPos(const QPointF &pos) const {
    const QRectF plot = chart()->plotArea();
    // QChartView keeps its scene the size of the viewport, so viewport and scene x agree.
    const double f = std::clamp((pos.x() - plot.left()) / plot.width(), 0.0, 1.0);
    return m_visible.first + f * (m_visible.second - m_visible.first);
}

void TimeSeriesChart::mousePressEvent(QMouseEvent *event) {
    if (event->button() == Qt::MiddleButton || event->button() == Qt::RightButton) {
        // QChartView would zoom out on a right click; here both buttons drag to pan.
        m_panning = true;
        m_panLast = event->pos();
        setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QChartView::mousePressEvent(event);
}

void TimeSeriesChart::mouseMoveEvent(QMouseEvent *event) {
    if (m_panning) {
        const double width = chart()->plotArea().width();
        if (width > 0)
            pan(-(event->pos().x() - m_panLast.x()) / width);
        m_panLast = event->pos();
        event->accept();
        return;
    }
    QChartView::mouseMoveEvent(event);
}

void TimeSeriesChart::mouseReleaseEvent(QMouseEvent *event) {
    if (m_panning) {
        m_panning = false;
        unsetCursor();
        event->accept();
        return;
    }
    // QChartView applies the rubber band to the axes itself; adopt its new x range
    // as our zoom so thinning, following and the y axes agree with it.
    const QPair<double, double> before{m_xAxis->min(), m_xAxis->max()};
    QChartView::mouseReleaseEvent(event);
    const QPair<double, double> after{m_xAxis->min(), m_xAxis->max()};
    if (after != before) {
        zoomX(after.first, after.second);
        if (m_visible != after) // rejected (empty band): put the axis back
            viewChanged();
    }
}

void TimeSeriesChart::mouseDoubleClickEvent(QMouseEvent *event) {
    resetZoom();
    event->accept();
}

void TimeSeriesChart::wheelEvent(QWheelEvent *event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return QChartView::wheelEvent(event);
    // Zoom around the cursor, so the value under it stays put.
    const double x = xAtViewPos(event->position());
    const double factor = std::pow(0.8, steps);
    zoomX(x - (x - m_visible.first) * factor, x + (m_visible.second - x) * factor);
    event->accept();
}

void TimeSeriesChart::keyPressEvent(QKeyEvent *event) {
    switch (event->key()) {
    case Qt::Key_Left: pan(-0.1); break;
    case Qt::Key_Right: pan(0.1); break;
    case Qt::Key_Home: resetZoom(); break;
    default: return QChartView::keyPressEvent(event);
    }
    event->accept();
}

} // namespace synaptic::ui
