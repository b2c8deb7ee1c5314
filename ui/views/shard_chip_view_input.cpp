// ShardChipView's input: selection by click and rubber band, the drag of
// the selected chips and the drop onto an edge's row, tooltips. Every move
// goes through the model's mimeData()/dropMimeData(), as the tree's do.
// GUI thread only.
#include "shard_chip_view.h"

#include "ui/models/shard_map_model.h"

#include <QDrag>
#include <QHelpEvent>
#include <QLocale>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>

namespace synaptic::ui {

void ShardChipView::setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command) {
    ensureCache();
    if (!selectionModel())
        return;
    const QRect area = rect.normalized();
    QItemSelection selection;
    if (m_pressing && !(m_pressModifiers & Qt::ShiftModifier)) {
        const QModelIndex pressed = indexAt(m_pressed - QPoint(0, verticalOffset()));
        if (pressed.isValid() && pressed.parent().isValid()) {
            selectionModel()->select(QItemSelection(pressed, pressed), command);
            return;
        }
    }
    const int h = rowHeight(), lane = m_layout.laneWidth(), x0 = m_metrics.laneX();
    const int first = std::max(0, (area.top() + verticalOffset()) / h);
    const int last = std::min(int(m_edges.size()) - 1, (area.bottom() + verticalOffset()) / h);
    for (int e = first; e <= last; ++e) {
        const QRect row = edgeRect(e);
        const int chips = m_layout.chipCount(e);
        // Chip rows the rectangle touches on each line, merged: a chip folded
        // over two lines is selected once.
        std::vector<std::pair<int, int>> spans;
        for (int l = 0; l < m_layout.lines() && chips > 0; ++l) {
            const QRect line(x0, row.top() + m_metrics.pad + l * (m_metrics.line + m_metrics.gap), lane, m_metrics.line);
            const QRect hit = line & area;
            if (hit.isEmpty())
                continue;
            const int from = m_layout.firstChipFrom(e, l * lane + hit.left() - x0);
            const int to = std::min(chips - 1, m_layout.firstChipFrom(e, l * lane + hit.right() - x0));
            if (from < chips && from <= to)
                spans.emplace_back(from, to);
        }
        std::sort(spans.begin(), spans.end());
        std::vector<std::pair<int, int>> merged;
        for (const auto &s : spans) {
            if (!merged.empty() && s.first <= merged.back().second + 1)
                merged.back().second = std::max(merged.back().second, s.second);
            else
                merged.push_back(s);
        }
        const QModelIndex parent = edgeIndex(e);
        for (const auto &[from, to] : merged)
            selection.select(model()->index(from, 0, parent), model()->index(to, 0, parent));
        // A click on the name or the bar picks the edge (the tree's edge item).
        if (merged.empty() && area.left() < x0 && area.intersects(row))
            selection.select(parent, parent);
    }
    selectionModel()->select(selection, command);
}

void ShardChipView::mousePressEvent(QMouseEvent *event) {
    m_pressed = event->position().toPoint() + QPoint(0, verticalOffset());
    m_pressModifiers = event->modifiers();
    m_pressing = true;
    QAbstractItemView::mousePressEvent(event);
    m_pressing = false;
}

void ShardChipView::mouseMoveEvent(QMouseEvent *event) {
    QAbstractItemView::mouseMoveEvent(event);
    if (state() == DragSelectingState && (event->buttons() & Qt::LeftButton)) {
        const QRect old = m_rubberBand;
        m_rubberBand = QRect(m_pressed - QPoint(0, verticalOffset()), event->position().toPoint()).normalized();
        viewport()->update(old.united(m_rubberBand).adjusted(-2, -2, 2, 2));
    }
}

void ShardChipView::mouseReleaseEvent(QMouseEvent *event) {
    QAbstractItemView::mouseReleaseEvent(event);
    if (!m_rubberBand.isEmpty()) {
        viewport()->update(m_rubberBand.adjusted(-2, -2, 2, 2));
        m_rubberBand = {};
    }
}

QMimeData *ShardChipView::selectionMimeData() const {
    if (!model() || !selectionModel())
        return nullptr;
    QModelIndexList chips;
    for (const QModelIndex &i : selectionModel()->selectedIndexes())
        if (i.parent().isValid() && (model()->flags(i) & Qt::ItemIsDragEnabled))
            chips << i;
    return chips.isEmpty() ? nullptr : model()->mimeData(chips);
}

void ShardChipView::startDrag(Qt::DropActions) {
    QMimeData *mime = selectionMimeData();
    if (!mime)
        return;
    // The picture under the cursor says what travels, as the tree's rows would.
    const int count = int(selectionModel()->selectedIndexes().size());
    const QString text = tr("%n shard(s)", nullptr, count);
    const QFontMetrics fm = fontMetrics();
    QPixmap pixmap(QSize(fm.horizontalAdvance(text) + 12, fm.height() + 8) * devicePixelRatioF());
    pixmap.setDevicePixelRatio(devicePixelRatioF());
    pixmap.fill(palette().color(QPalette::Highlight));
    {
        QPainter p(&pixmap);
        p.setPen(palette().color(QPalette::HighlightedText));
        p.drawText(QRect(0, 0, fm.horizontalAdvance(text) + 12, fm.height() + 8), Qt::AlignCenter, text);
    }
    auto *drag = new QDrag(this);
    drag->setMimeData(mime);
    drag->setPixmap(pixmap);
    drag->exec(Qt::MoveAction, Qt::MoveAction);
}

void ShardChipView::dragEnterEvent(QDragEnterEvent *event) {
    if (model() && acceptDrops() && event->mimeData()->hasFormat(ShardMapModel::kMimeType)) {
        event->setDropAction(Qt::MoveAction);
        event->accept();
    } else {
        event->ignore();
    }
}

void ShardChipView::dragMoveEvent(QDragMoveEvent *event) {
    const QPoint pos = event->position().toPoint();
    const int edge = edgeAt(pos);
    // Near the top or bottom: scroll, so a far edge can be reached.
    const int margin = rowHeight() / 2;
    if (pos.y() < margin)
        verticalScrollBar()->setValue(verticalOffset() - margin);
    else if (pos.y() > viewport()->height() - margin)
        verticalScrollBar()->setValue(verticalOffset() + margin);
    if (edge != m_dropEdge)
        viewport()->update(edgeRect(m_dropEdge));
    m_dropEdge = edge;
    // A refused target still takes the drop: dropMimeData() then says why.
    m_dropOk = edge >= 0 && model()->canDropMimeData(event->mimeData(), Qt::MoveAction, -1, 0, edgeIndex(edge));
    if (edge >= 0) {
        viewport()->update(edgeRect(edge));
        event->setDropAction(Qt::MoveAction);
        event->accept();
    } else {
        event->ignore();
    }
}

void ShardChipView::dragLeaveEvent(QDragLeaveEvent *) {
    viewport()->update(edgeRect(m_dropEdge));
    m_dropEdge = -1;
}

void ShardChipView::dropEvent(QDropEvent *event) {
    const int edge = edgeAt(event->position().toPoint());
    viewport()->update(edgeRect(m_dropEdge));
    m_dropEdge = -1;
    if (edge < 0 || !model() || !acceptDrops()) {
        event->ignore();
        return;
    }
    // The model sends the moves, asks about the bounds, or says why not.
    const bool sent = model()->dropMimeData(event->mimeData(), Qt::MoveAction, -1, 0, edgeIndex(edge));
    event->setDropAction(sent ? Qt::MoveAction : Qt::IgnoreAction);
    event->accept();
}

QString ShardChipView::toolTipAt(const QPoint &point) const {
    const QModelIndex index = indexAt(point);
    if (!index.isValid())
        return {};
    const QLocale locale;
    if (!index.parent().isValid()) {
        QStringList lines{index.data().toString()};
        if (const QString more = index.data(Qt::ToolTipRole).toString(); !more.isEmpty())
            lines << more;
        if (bandMin() > 0 || bandMax() < 1)
            lines << tr("the green band on the bar: the planner's bounds, %1–%2 %")
                         .arg(bandMin() * 100, 0, 'g', 4)
                         .arg(bandMax() * 100, 0, 'g', 4);
        return lines.join(QLatin1Char('\n'));
    }
    const int edge = index.parent().row();
    const qlonglong parameters = index.data(ShardMapModel::ParametersRole).toLongLong();
    const double share = m_edges[std::size_t(edge)].share;
    const double total = share > 0 ? double(m_layout.edgeParameters(edge)) / share : 0;
    QStringList lines{index.data().toString(),
                      tr("layer %1 · %2 parameters%3")
                          .arg(index.data(ShardMapModel::LayerRole).toString(), locale.toString(parameters))
                          .arg(total > 0 ? tr(" (%1 % of the model)").arg(double(parameters) / total * 100, 0, 'f', 2)
                                         : QString()),
                      tr("version %1 at its owner").arg(index.data(ShardMapModel::VersionRole).toULongLong())};
    if (const QString held = index.data(Qt::ToolTipRole).toString(); !held.isEmpty())
        lines << held;
    return lines.join(QLatin1Char('\n'));
}

bool ShardChipView::viewportEvent(QEvent *event) {
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport(), visualRect(indexAt(help->pos())));
        return true;
    }
    return QAbstractItemView::viewportEvent(event);
}

} // namespace synaptic::ui
