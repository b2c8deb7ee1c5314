#include "topology_layout.h"

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

namespace {

using M = TopologyMetrics;

QVector<QVector<int>> edgesByRegion(int regionCount, const QVector<int> &regionOfEdge) {
    QVector<QVector<int>> members(regionCount);
    for (int e = 0; e < regionOfEdge.size(); ++e)
        if (regionOfEdge[e] >= 0 && regionOfEdge[e] < regionCount)
            members[regionOfEdge[e]].append(e);
    return members;
}

// Edges fill the box row by row in config order; a short last row is centred
// so a region of 3 in a 2-column grid does not look lopsided.
void placeEdges(const QRectF &box, const QVector<int> &edges, int columns, bool centerBelow, TopologyLayout &layout) {
    const int count = int(edges.size());
    const qreal portSpan = box.width() - 2 * M::kBoxPadding;
    for (int k = 0; k < count; ++k)
        layout.centerPorts[edges[k]] =
            QPointF(box.left() + M::kBoxPadding + (k + 0.5) * portSpan / count, centerBelow ? box.bottom() : box.top());
    for (int k = 0; k < count; ++k) {
        const int row = k / columns;
        const int col = k % columns;
        const int inRow = std::min(columns, count - row * columns);
        const qreal shift = (columns - inRow) * M::kCellWidth / 2;
        layout.edgePositions[edges[k]] =
            QPointF(box.left() + M::kBoxPadding + shift + col * M::kCellWidth + M::kCellWidth / 2,
                    box.top() + M::kTitleHeight + row * M::kCellHeight + M::kNodeTop + M::kNodeRadius);
    }
}

qreal rowWidth(int boxes, qreal boxWidth) { return boxes * boxWidth + std::max(0, boxes - 1) * M::kRegionGap; }

void placeRow(TopologyLayout &layout, int first, int count, qreal top, qreal width, QSizeF box) {
    const qreal left = (width - rowWidth(count, box.width())) / 2;
    for (int i = 0; i < count; ++i)
        layout.regionBoxes[first + i] = QRectF(QPointF(left + i * (box.width() + M::kRegionGap), top), box);
}

TopologyLayout build(TopologyLayout::Arrangement arrangement, int columns, const QVector<QVector<int>> &members,
                     int edgeCount) {
    const int regions = int(members.size());
    int most = 1;
    for (const auto &m : members)
        most = std::max(most, int(m.size()));
    const int rows = (most + columns - 1) / columns;
    const QSizeF box(columns * M::kCellWidth + 2 * M::kBoxPadding,
                     M::kTitleHeight + rows * M::kCellHeight + M::kBoxBottom);

    TopologyLayout layout;
    layout.arrangement = arrangement;
    layout.columns = columns;
    layout.regionBoxes.resize(regions);
    layout.edgePositions.resize(edgeCount);
    layout.centerPorts.resize(edgeCount);
    const qreal centerBand = 2 * M::kCenterRadius;
    if (arrangement == TopologyLayout::CenterAbove) {
        const qreal width = std::max(rowWidth(regions, box.width()), centerBand) + 2 * M::kMargin;
        layout.center = QPointF(width / 2, M::kMargin + M::kCenterRadius);
        const qreal top = M::kMargin + centerBand + M::kLinkGap;
        placeRow(layout, 0, regions, top, width, box);
        const qreal bottom = regions ? top + box.height() + M::kBadgeHeight : centerBand;
        layout.bounds = QRectF(0, 0, width, bottom + M::kMargin);
    } else {
        const int upper = (regions + 1) / 2;
        const qreal width = rowWidth(upper, box.width()) + 2 * M::kMargin;
        const qreal upperTop = M::kMargin + M::kBadgeHeight;
        const qreal centerY = upperTop + box.height() + M::kLinkGap + M::kCenterRadius;
        layout.center = QPointF(width / 2, centerY);
        placeRow(layout, 0, upper, upperTop, width, box);
        const qreal lowerTop = centerY + M::kCenterRadius + M::kLinkGap;
        placeRow(layout, upper, regions - upper, lowerTop, width, box);
        layout.bounds = QRectF(0, 0, width, lowerTop + box.height() + M::kBadgeHeight + M::kMargin);
    }
    for (int r = 0; r < regions; ++r)
        placeEdges(layout.regionBoxes[r], members[r], columns, layout.centerBelow(r), layout);
    return layout;
}

} // namespace

QRectF TopologyLayout::labelRect(QPointF edgeCentre) {
    return QRectF(edgeCentre.x() - M::kCellWidth / 2 + 1, edgeCentre.y() + M::kNodeRadius + 2, M::kCellWidth - 2,
                  M::kLabelPixels + 3);
}

QPainterPath centerLinkPath(QPointF edge, QPointF port, QPointF center) {
    QPainterPath path(edge);
    path.lineTo(port);
    path.lineTo(center);
    return path;
}

QPainterPath edgeLinkPath(QPointF a, QPointF b, bool sameRegion) {
    const QPointF d = b - a;
    const qreal length = std::hypot(d.x(), d.y());
    if (length == 0)
        return QPainterPath(a);
    // Perpendicular, pointing up for a left-to-right link and right for a
    // top-to-bottom one. Labels hang under the circles, so a link down a
    // column swings a fixed distance to the side to pass beside them.
    const QPointF normal = QPointF(d.y(), -d.x()) / length;
    const bool column = sameRegion && std::abs(d.y()) > std::abs(d.x());
    const qreal apex = column ? M::kCellWidth / 2 - 3 : length * (sameRegion ? 0.09 : 0.05);
    QPainterPath path(a);
    path.quadTo((a + b) / 2 + normal * 2 * apex, b); // a quadratic's apex is half its control offset
    return path;
}

qreal fitZoom(const QRectF &bounds, QSizeF available) {
    if (bounds.isEmpty() || available.isEmpty())
        return 1;
    return std::min({available.width() / bounds.width(), available.height() / bounds.height(), M::kMaxZoom});
}

TopologyLayout layoutTopology(int regionCount, const QVector<int> &regionOfEdge, QSizeF viewSize) {
    const auto members = edgesByRegion(std::max(0, regionCount), regionOfEdge);
    int most = 1;
    for (const auto &m : members)
        most = std::max(most, int(m.size()));
    // Candidates in order of preference; a later one must be strictly larger
    // on screen to win, so ties keep the center on top and the widest rows.
    TopologyLayout best;
    qreal bestZoom = -1;
    for (auto arrangement : {TopologyLayout::CenterAbove, TopologyLayout::CenterBetweenRows}) {
        if (arrangement == TopologyLayout::CenterBetweenRows && members.size() < 3)
            continue;
        for (int columns = most; columns >= 1; --columns) {
            auto candidate = build(arrangement, columns, members, int(regionOfEdge.size()));
            const qreal zoom = fitZoom(candidate.bounds, viewSize);
            if (zoom > bestZoom + 1e-9) {
                bestZoom = zoom;
                best = std::move(candidate);
            }
        }
    }
    return best;
}

} // namespace synaptic::ui
