#pragma once

#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QVector>

namespace synaptic::ui {

// Pure geometry of the topology view, in scene units (1 unit = 1 px at zoom 1).
// Kept apart from the items so it can be reasoned about and tested without a
// scene. All regions get boxes of the same size so the picture reads as a grid.
struct TopologyMetrics {
    static constexpr qreal kCellWidth = 58; // one edge: circle + elided label under it
    static constexpr qreal kCellHeight = 40;
    static constexpr qreal kNodeRadius = 9;
    static constexpr qreal kNodeTop = 3; // circle top inside its cell
    static constexpr qreal kCenterRadius = 22;
    static constexpr qreal kBoxPadding = 8;
    static constexpr qreal kTitleHeight = 20; // region name row at the top of a box
    static constexpr qreal kBoxBottom = 4;
    static constexpr qreal kRegionGap = 16;
    static constexpr qreal kLinkGap = 46; // room for center links to show width and colour
    static constexpr qreal kMargin = 10;
    static constexpr qreal kBadgeHeight = 15; // "partitioned" tab on the box side away from the center
    static constexpr qreal kLabelPixels = 11; // font pixel size of node and region labels
    static constexpr qreal kMaxZoom = 1.5;    // small clusters should not look cartoonish
};

struct TopologyLayout {
    enum Arrangement { CenterAbove, CenterBetweenRows };
    Arrangement arrangement = CenterAbove;
    int columns = 1; // edge grid columns inside every region box
    QPointF center;
    QVector<QRectF> regionBoxes;    // by region index
    QVector<QPointF> edgePositions; // circle centres, by edge index
    // Where each edge's center link leaves its box: spread along the side that
    // faces the center, in edge order, so 64 links fan out without crossing
    // instead of streaking diagonally across the gaps between boxes.
    QVector<QPointF> centerPorts; // by edge index
    QRectF bounds;                // everything, margins included

    // Where the edge's label goes (under its circle), for items and overlap tests.
    static QRectF labelRect(QPointF edgeCentre);
    bool centerBelow(int region) const { return center.y() > regionBoxes[region].bottom(); }
};

// Link shapes: edge → its port → the center; between two edges a bow so a
// link does not run through the edges and labels between its ends.
QPainterPath centerLinkPath(QPointF edge, QPointF port, QPointF center);
QPainterPath edgeLinkPath(QPointF a, QPointF b, bool sameRegion);

// Lays out `regionCount` regions holding the edges in config order
// (regionOfEdge[e] must be in [0, regionCount)). Among the candidate
// arrangements it picks the one that can be drawn largest in `viewSize`,
// since legibility at the default window size is what matters most.
TopologyLayout layoutTopology(int regionCount, const QVector<int> &regionOfEdge, QSizeF viewSize = QSizeF(700, 428));

// The zoom at which `bounds` fits `available`, never above kMaxZoom.
qreal fitZoom(const QRectF &bounds, QSizeF available);

} // namespace synaptic::ui
