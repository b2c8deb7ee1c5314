// ShardChipView: what it caches of the model, its geometry and hit tests.
// Painting is in shard_chip_view_paint.cpp, mouse and drag in
// shard_chip_view_input.cpp. GUI thread only.
#include "shard_chip_view.h"

#include "ui/models/shard_map_model.h"

#include <QMap>
#include <QScrollBar>

#include <algorithm>

namespace synaptic::ui {

ShardChipView::ShardChipView(QWidget *parent) : QAbstractItemView(parent) {
    setSelectionMode(ExtendedSelection);
    setSelectionBehavior(SelectItems);
    setDragDropMode(DragDrop);
    setDefaultDropAction(Qt::MoveAction);
    setEditTriggers(NoEditTriggers);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // the chips fold into the width instead
    // Always there: a bar that came and went would change the lane's width,
    // the rows' height, and so whether the bar is needed.
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setMouseTracking(true);
    setObjectName(QStringLiteral("shardChipView"));
    relayout();
}

void ShardChipView::setModel(QAbstractItemModel *model) {
    if (this->model())
        disconnect(this->model(), nullptr, this, nullptr);
    QAbstractItemView::setModel(model);
    if (model) {
        // rowsInserted() and reset() are virtual; these are not.
        connect(model, &QAbstractItemModel::rowsRemoved, this, [this](const QModelIndex &parent) {
            if (parent.isValid() && parent.row() < int(m_edges.size())) {
                m_edges[std::size_t(parent.row())].chipsDirty = true;
                m_edges[std::size_t(parent.row())].infoDirty = true;
            } else {
                markAllDirty();
            }
            viewport()->update();
        });
        connect(model, &QAbstractItemModel::layoutChanged, this, &ShardChipView::markAllDirty);
    }
    markAllDirty();
}

void ShardChipView::markAllDirty() {
    m_resetPending = true;
    viewport()->update();
    updateGeometries();
}

void ShardChipView::reset() {
    QAbstractItemView::reset();
    markAllDirty();
}

QModelIndex ShardChipView::edgeIndex(int edge) const { return model() ? model()->index(edge, 0) : QModelIndex(); }

int ShardChipView::layerIndex(const QString &layer) const {
    const auto it = m_layerIndex.constFind(layer);
    if (it != m_layerIndex.cend())
        return *it;
    m_layerIndex.insert(layer, int(m_layers.size()));
    m_layers << layer;
    return int(m_layers.size()) - 1;
}

void ShardChipView::reloadEdge(int e) const {
    auto &edge = m_edges[std::size_t(e)];
    const QModelIndex parent = edgeIndex(e);
    const int n = model()->rowCount(parent);
    edge.chips.assign(std::size_t(n), Chip{});
    std::vector<qint64> parameters(static_cast<std::size_t>(n), 0);
    const auto *selection = selectionModel();
    for (int r = 0; r < n; ++r) {
        const QModelIndex i = model()->index(r, 0, parent);
        auto &chip = edge.chips[std::size_t(r)];
        parameters[std::size_t(r)] = i.data(ShardMapModel::ParametersRole).toLongLong();
        chip.shard = i.data(ShardMapModel::ShardIdRole).toInt();
        chip.layer = layerIndex(i.data(ShardMapModel::LayerRole).toString());
        chip.inFlight = i.data(ShardMapModel::InFlightRole).toBool();
        chip.selected = selection && selection->isSelected(i);
    }
    m_layout.setEdge(e, std::move(parameters));
    edge.chipsDirty = false;
    edge.picture = {};
}

void ShardChipView::reloadInfo(int e) const {
    auto &edge = m_edges[std::size_t(e)];
    const QModelIndex i = edgeIndex(e);
    edge.name = i.data(ShardMapModel::EdgeNameRole).toString();
    edge.mode = i.data(ShardMapModel::EdgeModeRole).toString();
    edge.share = i.data(ShardMapModel::ShareRole).toDouble();
    edge.outOfBounds = i.data(ShardMapModel::OutOfBoundsRole).toBool();
    edge.infoDirty = false;
}

void ShardChipView::ensureCache() const {
    if (!model()) {
        m_edges.clear();
        m_layout.setParameters({});
        return;
    }
    const int rowsBefore = rowHeight();
    bool infoChanged = false;
    if (m_resetPending) {
        m_resetPending = false;
        m_edges.assign(std::size_t(model()->rowCount()), Edge{});
        m_layout.setParameters(std::vector<std::vector<qint64>>(m_edges.size()));
        m_layers.clear();
        m_layerIndex.clear();
        for (int e = 0; e < int(m_edges.size()); ++e)
            reloadEdge(e);
        // Layers in the model's order (shards are numbered layer by layer),
        // so a layer keeps its colour whichever edge shows it first.
        QMap<int, int> firstShard; // smallest shard id → layer index as first seen
        QHash<int, int> smallest;
        for (const auto &edge : m_edges)
            for (const auto &chip : edge.chips)
                if (!smallest.contains(chip.layer) || chip.shard < smallest[chip.layer])
                    smallest[chip.layer] = chip.shard;
        for (auto it = smallest.cbegin(); it != smallest.cend(); ++it)
            firstShard.insert(it.value(), it.key());
        QVector<int> remap(m_layers.size());
        QStringList ordered;
        for (int seen : firstShard) {
            remap[seen] = int(ordered.size());
            ordered << m_layers[seen];
        }
        m_layers = ordered;
        m_layerIndex.clear();
        for (int i = 0; i < m_layers.size(); ++i)
            m_layerIndex.insert(m_layers[i], i);
        for (auto &edge : m_edges)
            for (auto &chip : edge.chips)
                chip.layer = remap[chip.layer];
        Q_EMIT const_cast<ShardChipView *>(this)->layersChanged(m_layers);
        infoChanged = true;
    }
    for (int e = 0; e < int(m_edges.size()); ++e) {
        auto &edge = m_edges[std::size_t(e)];
        if (edge.chipsDirty)
            reloadEdge(e);
        if (edge.infoDirty) {
            reloadInfo(e);
            infoChanged = true;
        }
    }
    auto *self = const_cast<ShardChipView *>(this);
    if (infoChanged) {
        // The name column fits the longest name, within reason.
        const QFontMetrics fm = fontMetrics();
        int widest = 0;
        for (const auto &edge : m_edges)
            widest = std::max(widest, fm.horizontalAdvance(edge.name));
        // At least "read_only": an edge that cannot take shards says so under its name.
        self->m_metrics.nameWidth = std::clamp(widest + 4, fm.horizontalAdvance(QStringLiteral("read_only")) + 2, 140);
    }
    m_layout.setLaneWidth(laneWidth());
    if (rowHeight() != rowsBefore)
        self->updateGeometries();
}

void ShardChipView::relayout() {
    const QFontMetrics fm = fontMetrics();
    m_metrics.line = fm.height() + 4;
    m_metrics.barWidth = std::max(40, fm.horizontalAdvance(QStringLiteral("00000000")));
    m_metrics.percentWidth = fm.horizontalAdvance(QStringLiteral("100.0 %")) + 2;
    m_layout.setLaneWidth(laneWidth());
}

const ShardChipLayout &ShardChipView::chipLayout() const {
    ensureCache();
    return m_layout;
}

int ShardChipView::laneWidth() const {
    return std::max(8, viewport()->width() - m_metrics.laneX() - m_metrics.pad);
}

int ShardChipView::rowHeight() const {
    const int lines = m_layout.lines();
    return lines * m_metrics.line + (lines - 1) * m_metrics.gap + 2 * m_metrics.pad + 1;
}

int ShardChipView::verticalOffset() const { return verticalScrollBar()->value(); }

QRect ShardChipView::edgeRect(int edge) const {
    ensureCache();
    const int h = rowHeight();
    return {0, edge * h - verticalOffset(), viewport()->width(), h};
}

int ShardChipView::edgeAt(const QPoint &point) const {
    ensureCache();
    if (point.y() < 0 && verticalOffset() == 0)
        return -1;
    const int edge = (point.y() + verticalOffset()) / rowHeight();
    return edge >= 0 && edge < int(m_edges.size()) ? edge : -1;
}

QList<QRect> ShardChipView::chipRects(int edge, int row) const {
    ensureCache();
    QList<QRect> out;
    if (row < 0 || row >= m_layout.chipCount(edge))
        return out;
    const QRect r = edgeRect(edge);
    const int lane = m_layout.laneWidth(), b = m_layout.chipBegin(edge, row), end = m_layout.chipEnd(edge, row);
    const int lastLine = m_layout.lines() - 1;
    auto lineTop = [&](int l) { return r.top() + m_metrics.pad + l * (m_metrics.line + m_metrics.gap); };
    if (end <= b) { // thinner than a pixel: painted a pixel wide where it starts
        const int l = std::min(b / lane, lastLine);
        out << QRect(m_metrics.laneX() + std::min(b - l * lane, lane - 1), lineTop(l), 1, m_metrics.line);
        return out;
    }
    for (int l = b / lane; l <= std::min((end - 1) / lane, lastLine); ++l) {
        const int from = std::max(b, l * lane), to = std::min(end, (l + 1) * lane);
        out << QRect(m_metrics.laneX() + from - l * lane, lineTop(l), to - from, m_metrics.line);
    }
    return out;
}

bool ShardChipView::chipInFlight(int edge, int row) const {
    ensureCache();
    return edge >= 0 && edge < int(m_edges.size()) && row >= 0 && row < int(m_edges[std::size_t(edge)].chips.size()) &&
           m_edges[std::size_t(edge)].chips[std::size_t(row)].inFlight;
}

bool ShardChipView::chipSelected(int edge, int row) const {
    ensureCache();
    return edge >= 0 && edge < int(m_edges.size()) && row >= 0 && row < int(m_edges[std::size_t(edge)].chips.size()) &&
           m_edges[std::size_t(edge)].chips[std::size_t(row)].selected;
}

QStringList ShardChipView::layers() const {
    ensureCache();
    return m_layers;
}

QColor ShardChipView::layerColour(int layer) {
    // Tableau 10: distinct on dark and light themes; past ten, darker again.
    static const QColor kPalette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                      0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    const int n = int(std::size(kPalette));
    const QColor c = kPalette[std::max(0, layer) % n];
    return layer < n ? c : c.darker(100 + 40 * (layer / n));
}

double ShardChipView::bandMin() const {
    const auto *m = qobject_cast<const ShardMapModel *>(model());
    return m ? m->minShare() : 0.0;
}

double ShardChipView::bandMax() const {
    const auto *m = qobject_cast<const ShardMapModel *>(model());
    return m ? m->maxShare() : 1.0;
}

double ShardChipView::shareScale() const {
    double widest = 0;
    for (const auto &edge : m_edges)
        widest = std::max(widest, edge.share);
    double scale = widest * 1.1;
    if (bandMax() < 1)
        scale = std::max(scale, bandMax() * 1.5);
    return std::clamp(scale, 0.01, 1.0);
}

QModelIndex ShardChipView::indexAt(const QPoint &point) const {
    const int edge = edgeAt(point);
    if (edge < 0)
        return {};
    const QRect r = edgeRect(edge);
    const int x = point.x() - m_metrics.laneX(), y = point.y() - r.top() - m_metrics.pad;
    const int step = m_metrics.line + m_metrics.gap, line = y >= 0 ? y / step : -1;
    if (x < 0 || x >= m_layout.laneWidth() || line < 0 || line >= m_layout.lines() || y % step >= m_metrics.line)
        return edgeIndex(edge);
    const int row = m_layout.chipAt(edge, line * m_layout.laneWidth() + x);
    return row >= 0 ? model()->index(row, 0, edgeIndex(edge)) : edgeIndex(edge);
}

QRect ShardChipView::visualRect(const QModelIndex &index) const {
    if (!index.isValid() || index.model() != model())
        return {};
    if (!index.parent().isValid()) // an edge's item is its name and bar; its chips are items of their own
        return edgeRect(index.row()).adjusted(0, 0, m_metrics.laneX() - viewport()->width(), 0);
    QRect out;
    for (const QRect &r : chipRects(index.parent().row(), index.row()))
        out |= r;
    return out;
}

QRegion ShardChipView::visualRegionForSelection(const QItemSelection &selection) const {
    // Whole rows: cheaper than a rectangle per chip of a 250-chip selection.
    QRegion region;
    for (const auto &range : selection) {
        if (range.parent().isValid())
            region |= edgeRect(range.parent().row());
        else
            for (int e = range.top(); e <= range.bottom(); ++e)
                region |= edgeRect(e);
    }
    return region & viewport()->rect();
}

void ShardChipView::scrollTo(const QModelIndex &index, ScrollHint hint) {
    if (!index.isValid())
        return;
    const int edge = index.parent().isValid() ? index.parent().row() : index.row();
    const QRect r = edgeRect(edge);
    auto *bar = verticalScrollBar();
    const int h = viewport()->height();
    switch (hint) {
    case PositionAtTop: bar->setValue(bar->value() + r.top()); break;
    case PositionAtBottom: bar->setValue(bar->value() + r.bottom() - h); break;
    case PositionAtCenter: bar->setValue(bar->value() + r.center().y() - h / 2); break;
    case EnsureVisible:
        if (r.top() < 0)
            bar->setValue(bar->value() + r.top());
        else if (r.bottom() > h)
            bar->setValue(bar->value() + std::min(r.top(), r.bottom() - h));
        break;
    }
}

void ShardChipView::updateGeometries() {
    ensureCache();
    const int total = int(m_edges.size()) * rowHeight();
    verticalScrollBar()->setRange(0, std::max(0, total - viewport()->height()));
    verticalScrollBar()->setPageStep(viewport()->height());
    verticalScrollBar()->setSingleStep(std::max(1, rowHeight() / 2));
    QAbstractItemView::updateGeometries();
}

void ShardChipView::resizeEvent(QResizeEvent *event) {
    relayout();
    QAbstractItemView::resizeEvent(event);
    updateGeometries();
}

void ShardChipView::dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles) {
    if (m_resetPending || !topLeft.isValid())
        return;
    const QModelIndex parent = topLeft.parent();
    if (!parent.isValid()) {
        for (int e = topLeft.row(); e <= bottomRight.row() && e < int(m_edges.size()); ++e) {
            m_edges[std::size_t(e)].infoDirty = true;
            viewport()->update(edgeRect(e));
        }
        return;
    }
    // Shard items: only the in-flight mark is drawn (held shares change tooltips only).
    if (!roles.isEmpty() && !roles.contains(ShardMapModel::InFlightRole) && !roles.contains(Qt::DisplayRole))
        return;
    const int e = parent.row();
    if (e >= int(m_edges.size()))
        return;
    auto &edge = m_edges[std::size_t(e)];
    if (!edge.chipsDirty)
        for (int r = topLeft.row(); r <= bottomRight.row() && r < int(edge.chips.size()); ++r)
            edge.chips[std::size_t(r)].inFlight = model()->index(r, 0, parent).data(ShardMapModel::InFlightRole).toBool();
    edge.picture = {};
    viewport()->update(edgeRect(e));
}

void ShardChipView::rowsInserted(const QModelIndex &parent, int start, int end) {
    if (parent.isValid() && parent.row() < int(m_edges.size())) {
        m_edges[std::size_t(parent.row())].chipsDirty = true;
        m_edges[std::size_t(parent.row())].infoDirty = true;
        viewport()->update();
    } else {
        markAllDirty();
    }
    QAbstractItemView::rowsInserted(parent, start, end);
}

void ShardChipView::selectionChanged(const QItemSelection &selected, const QItemSelection &deselected) {
    if (!m_resetPending) {
        auto mark = [this](const QItemSelection &ranges, bool on) {
            for (const auto &range : ranges) {
                if (!range.parent().isValid() || range.parent().row() >= int(m_edges.size()))
                    continue;
                auto &edge = m_edges[std::size_t(range.parent().row())];
                if (edge.chipsDirty)
                    continue; // reloaded from the selection model before it is drawn
                edge.picture = {};
                for (int r = range.top(); r <= range.bottom() && r < int(edge.chips.size()); ++r)
                    edge.chips[std::size_t(r)].selected = on;
            }
        };
        mark(deselected, false);
        mark(selected, true);
    }
    QAbstractItemView::selectionChanged(selected, deselected);
}

QModelIndex ShardChipView::moveCursor(CursorAction action, Qt::KeyboardModifiers) {
    ensureCache();
    if (m_edges.empty())
        return {};
    const QModelIndex current = currentIndex();
    if (!current.isValid())
        return edgeIndex(0);
    const bool onChip = current.parent().isValid();
    const int edge = onChip ? current.parent().row() : current.row();
    const int row = onChip ? current.row() : -1;
    const int chips = m_layout.chipCount(edge);
    auto chip = [&](int e, int r) { return model()->index(r, 0, edgeIndex(e)); };
    auto otherEdge = [&](int e) {
        e = std::clamp(e, 0, int(m_edges.size()) - 1);
        if (!onChip || m_layout.chipCount(e) == 0)
            return edgeIndex(e);
        // The chip at the same place along the row, as the eye moves.
        const int at = m_layout.chipAt(e, m_layout.chipBegin(edge, row));
        return chip(e, at >= 0 ? at : m_layout.chipCount(e) - 1);
    };
    const int page = std::max(1, viewport()->height() / rowHeight());
    switch (action) {
    case MoveRight:
    case MoveNext: return row + 1 < chips ? chip(edge, row + 1) : current;
    case MoveLeft:
    case MovePrevious: return row > 0 ? chip(edge, row - 1) : edgeIndex(edge);
    case MoveUp: return otherEdge(edge - 1);
    case MoveDown: return otherEdge(edge + 1);
    case MovePageUp: return otherEdge(edge - page);
    case MovePageDown: return otherEdge(edge + page);
    case MoveHome: return chips > 0 ? chip(edge, 0) : current;
    case MoveEnd: return chips > 0 ? chip(edge, chips - 1) : current;
    }
    return current;
}

} // namespace synaptic::ui
