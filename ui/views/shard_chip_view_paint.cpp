// ShardChipView's painting: only the rows in view, each from the cache and
// the layout (no model calls), so a repaint of 64 edges × 250 chips stays a
// fraction of the 16 ms refresh budget (bench/ui_refresh). GUI thread only.
#include "shard_chip_view.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>

namespace synaptic::ui {

namespace {
const QColor kInFlight(0xf0, 0x9a, 0x30); // the tree's in-flight orange
const QColor kOutOfBounds(0xd0, 0x30, 0x30);
const QColor kBand(0x59, 0xa1, 0x4f, 110);
const QColor kDropOk(0x59, 0xa1, 0x4f);

QColor textOn(const QColor &fill) { return qGray(fill.rgb()) > 150 ? Qt::black : Qt::white; }
} // namespace

void ShardChipView::paintEvent(QPaintEvent *event) {
    ensureCache();
    QPainter p(viewport());
    const QRect dirty = event->rect();
    if (m_edges.empty() || m_layout.pixelsPerParameter() <= 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter, m_edges.empty() ? tr("no edges") : tr("no routing yet"));
        return;
    }
    // A move can change the scale (the largest edge sets it): every row's chips move.
    if (m_layout.pixelsPerParameter() != m_pictureScale) {
        m_pictureScale = m_layout.pixelsPerParameter();
        for (auto &edge : m_edges)
            edge.picture = {};
    }
    const int h = rowHeight();
    const int first = std::max(0, (dirty.top() + verticalOffset()) / h);
    const int last = std::min(int(m_edges.size()) - 1, (dirty.bottom() + verticalOffset()) / h);
    for (int e = first; e <= last; ++e)
        paintEdge(p, e, edgeRect(e));
    if (!m_rubberBand.isEmpty()) {
        QColor fill = palette().color(QPalette::Highlight);
        p.setPen(fill);
        fill.setAlpha(50);
        p.setBrush(fill);
        p.drawRect(m_rubberBand.adjusted(0, 0, -1, -1));
    }
}

void ShardChipView::paintEdge(QPainter &p, int e, const QRect &row) const {
    const auto &edge = m_edges[std::size_t(e)];
    const QPalette &pal = palette();
    if (e % 2)
        p.fillRect(row, pal.color(QPalette::AlternateBase));
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(row.left(), row.bottom(), row.right(), row.bottom());
    const QRect firstLine(0, row.top() + m_metrics.pad, row.width(), m_metrics.line);

    // The name: dimmed when the edge cannot take shards (read-only, down).
    const bool training = edge.mode == QLatin1String("training");
    p.setPen(edge.outOfBounds ? kOutOfBounds : pal.color(training ? QPalette::Active : QPalette::Disabled, QPalette::Text));
    const QRect nameRect(m_metrics.pad, firstLine.top(), m_metrics.nameWidth, m_metrics.line);
    p.drawText(nameRect, Qt::AlignVCenter | Qt::AlignLeft,
               fontMetrics().elidedText(edge.name, Qt::ElideRight, nameRect.width()));
    if (!training && m_layout.lines() > 1) {
        p.setPen(pal.color(QPalette::Disabled, QPalette::Text));
        p.drawText(nameRect.translated(0, m_metrics.line + m_metrics.gap), Qt::AlignVCenter | Qt::AlignLeft,
                   fontMetrics().elidedText(edge.mode, Qt::ElideRight, nameRect.width()));
    }

    const int barX = nameRect.right() + 6;
    paintShareBar(p, e, QRect(barX, firstLine.top() + m_metrics.line / 2 - 4, m_metrics.barWidth, 8));
    p.setPen(edge.outOfBounds ? kOutOfBounds : pal.color(QPalette::Text));
    p.drawText(QRect(barX + m_metrics.barWidth + 4, firstLine.top(), m_metrics.percentWidth, m_metrics.line),
               Qt::AlignVCenter | Qt::AlignRight, QString::number(edge.share * 100, 'f', 1) + QStringLiteral(" %"));

    // The chips: from the row's picture, drawn again only when they changed.
    const QPoint lane(m_metrics.laneX(), row.top() + m_metrics.pad);
    const qreal dpr = devicePixelRatioF();
    if (edge.picture.isNull() || edge.picture.deviceIndependentSize() != QSizeF(laneSize()) ||
        edge.picture.devicePixelRatio() != dpr) {
        QPixmap picture(laneSize() * dpr);
        picture.setDevicePixelRatio(dpr);
        picture.fill(Qt::transparent);
        QPainter cp(&picture);
        paintChips(cp, e, QPoint(0, 0));
        cp.end();
        m_edges[std::size_t(e)].picture = picture;
    }
    p.drawPixmap(lane, edge.picture);

    if (e == m_dropEdge) {
        p.setPen(QPen(m_dropOk ? kDropOk : kOutOfBounds, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(row.adjusted(1, 1, -1, -2));
    }
}

void ShardChipView::paintShareBar(QPainter &p, int e, const QRect &bar) const {
    const double scale = shareScale();
    auto xOf = [&](double share) { return bar.left() + int(std::lround(std::min(share / scale, 1.0) * bar.width())); };
    p.fillRect(bar, palette().color(QPalette::Base));
    if (bandMin() > 0 || bandMax() < 1) {
        const int from = xOf(bandMin()), to = xOf(bandMax());
        p.fillRect(QRect(from, bar.top() - 2, std::max(1, to - from), bar.height() + 4), kBand);
    }
    const auto &edge = m_edges[std::size_t(e)];
    const QColor fill = edge.outOfBounds ? kOutOfBounds : palette().color(QPalette::Highlight);
    p.fillRect(QRect(bar.left(), bar.top() + 2, xOf(edge.share) - bar.left(), bar.height() - 4), fill);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar.adjusted(0, 0, -1, -1));
}

QSize ShardChipView::laneSize() const {
    const int lines = m_layout.lines();
    return {m_layout.laneWidth(), lines * m_metrics.line + (lines - 1) * m_metrics.gap};
}

void ShardChipView::changeEvent(QEvent *event) {
    // Chips are drawn with the palette (selection) and the font (labels).
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        for (auto &edge : m_edges)
            edge.picture = {};
        relayout();
        updateGeometries();
    }
    QAbstractItemView::changeEvent(event);
}

void ShardChipView::paintChips(QPainter &p, int e, QPoint origin) const {
    const auto &chips = m_edges[std::size_t(e)].chips;
    const int lane = m_layout.laneWidth(), lines = m_layout.lines(), x0 = origin.x();
    const QFontMetrics fm = fontMetrics();
    const QColor highlight = palette().color(QPalette::Highlight);
    for (int l = 0; l < lines; ++l) {
        const int y = origin.y() + l * (m_metrics.line + m_metrics.gap);
        const int lineBegin = l * lane, lineEnd = lineBegin + lane;
        for (int r = m_layout.firstChipFrom(e, lineBegin); r < int(chips.size()); ++r) {
            const int b = m_layout.chipBegin(e, r), end = m_layout.chipEnd(e, r);
            if (b >= lineEnd)
                break;
            const auto &chip = chips[std::size_t(r)];
            const int from = std::max(b, lineBegin), to = std::min(std::max(end, b + 1), lineEnd);
            const QRect piece(x0 + from - lineBegin, y, to - from, m_metrics.line);
            QColor colour = layerColour(chip.layer);
            if (chip.selected)
                colour = colour.lighter(145);
            p.fillRect(piece, colour);
            // A chip's first pixel column is darker: neighbours of one layer stay apart.
            if (from == b && piece.width() >= 3)
                p.fillRect(QRect(piece.left(), y, 1, m_metrics.line), colour.darker(170));
            if (chip.inFlight) {
                p.fillRect(piece, QBrush(textOn(colour), Qt::BDiagPattern));
                p.setPen(QPen(kInFlight, 1, Qt::DashLine));
                p.setBrush(Qt::NoBrush);
                p.drawRect(piece.adjusted(0, 0, -1, -1));
                // A tab under the chip, wide enough to see on a chip of a pixel or two.
                const int tab = std::max(piece.width(), 7);
                p.fillRect(QRect(piece.center().x() - tab / 2, piece.bottom() - 2, tab, 3), kInFlight);
            }
            if (chip.selected) {
                p.setPen(QPen(highlight, 2));
                p.setBrush(Qt::NoBrush);
                p.drawRect(piece.adjusted(1, 1, -1, -1));
            }
            // Wide enough for its number: say which shard it is.
            if (from == b && piece.width() >= 18) {
                const QString label = QString::number(chip.shard);
                if (fm.horizontalAdvance(label) + 4 <= piece.width()) {
                    p.setPen(textOn(colour));
                    p.drawText(piece, Qt::AlignCenter, label);
                }
            }
        }
    }
}

} // namespace synaptic::ui
