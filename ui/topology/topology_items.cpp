#include "topology_items.h"

#include "topology_layout.h"
#include "topology_style.h"
#include "topology_text.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPalette>

namespace synaptic::ui {

namespace {

using M = TopologyMetrics;

QColor mix(const QColor &a, const QColor &b, qreal t) {
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t, a.greenF() + (b.greenF() - a.greenF()) * t,
                            a.blueF() + (b.blueF() - a.blueF()) * t);
}

constexpr qreal kRingGap = 4;
constexpr qreal kRingWidth = 2.5;
constexpr qreal kBoxRadius = 8;

QString badgeText() { return topology_text::tr("partitioned"); }

} // namespace

TopologyPalette TopologyPalette::from(const QPalette &palette) {
    TopologyPalette p;
    p.background = palette.color(QPalette::Base);
    p.text = palette.color(QPalette::Text);
    p.dimText = mix(p.text, p.background, 0.5);
    p.boxFill = mix(p.background, p.text, 0.07);
    p.labelBack = p.boxFill;
    p.boxBorder = mix(p.background, p.text, 0.3);
    p.highlight = palette.color(QPalette::Highlight);
    return p;
}

QFont topologyFont(qreal pixels, bool bold) {
    QFont font;
    font.setPixelSize(int(pixels));
    font.setBold(bold);
    return font;
}

NodeItem::NodeItem(int node, const QString &name, bool isCenter)
    : m_node(node), m_center(isCenter), m_fill(isCenter ? centerColor(true) : modeColor(QString())) {
    const qreal width = m_center ? 2 * M::kCenterRadius - 6 : M::kCellWidth - 4;
    const QFont font = m_center ? topologyFont(M::kLabelPixels - 1, true) : topologyFont(M::kLabelPixels);
    m_label = QFontMetricsF(font).elidedText(name, Qt::ElideRight, width);
    m_labelWidth = QFontMetricsF(font).horizontalAdvance(m_label);
    setZValue(2);
    // Painted once into a pixmap and re-blitted: links under and around the
    // node repaint at every traffic interval, the node only when its state does.
    setCacheMode(QGraphicsItem::DeviceCoordinateCache);
}

qreal NodeItem::radius() const { return m_center ? M::kCenterRadius : M::kNodeRadius; }

void NodeItem::setFill(const QColor &fill, bool down) {
    if (fill == m_fill && down == m_down)
        return;
    m_fill = fill;
    m_down = down;
    update();
}

void NodeItem::setRing(bool on) {
    if (on == m_ring)
        return;
    m_ring = on;
    update();
}

void NodeItem::setPalette(const TopologyPalette &palette) {
    m_palette = palette;
    update();
}

QRectF NodeItem::boundingRect() const {
    const qreal outer = radius() + kRingGap + kRingWidth;
    QRectF rect(-outer, -outer, 2 * outer, 2 * outer);
    return m_center ? rect : rect.united(TopologyLayout::labelRect(QPointF()));
}

QPainterPath NodeItem::shape() const {
    QPainterPath path;
    const qreal r = radius() + 2;
    path.addEllipse(QPointF(), r, r);
    if (!m_center)
        path.addRect(TopologyLayout::labelRect(QPointF()));
    return path;
}

void NodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) {
    const qreal r = radius();
    painter->setRenderHint(QPainter::Antialiasing);
    if (m_ring) {
        painter->setPen(QPen(m_palette.highlight, kRingWidth));
        painter->setBrush(Qt::NoBrush);
        painter->drawEllipse(QPointF(), r + kRingGap, r + kRingGap);
    }
    painter->setPen(QPen(m_fill.darker(150), 1.2));
    painter->setBrush(m_fill);
    painter->drawEllipse(QPointF(), r, r);
    if (m_down) {
        // A cross as well as the dark fill: "down" must not rely on colour alone.
        painter->setPen(QPen(QColor(0xd0, 0xd0, 0xd0), 1.6, Qt::SolidLine, Qt::RoundCap));
        const qreal d = r * 0.5;
        painter->drawLine(QPointF(-d, -d), QPointF(d, d));
        painter->drawLine(QPointF(-d, d), QPointF(d, -d));
    }
    if (m_center) {
        painter->setFont(topologyFont(M::kLabelPixels - 1, true));
        painter->setPen(Qt::white);
        painter->drawText(QRectF(-r, -r, 2 * r, 2 * r), Qt::AlignCenter, m_label);
    } else {
        const QRectF cell = TopologyLayout::labelRect(QPointF());
        const qreal width = m_labelWidth + 4;
        painter->setPen(Qt::NoPen);
        painter->setBrush(m_palette.labelBack);
        painter->drawRoundedRect(QRectF(-width / 2, cell.top(), width, cell.height() - 1), 2, 2);
        painter->setFont(topologyFont(M::kLabelPixels));
        painter->setPen(m_down ? m_palette.dimText : m_palette.text);
        painter->drawText(cell, Qt::AlignHCenter | Qt::AlignTop, m_label);
    }
}

RegionItem::RegionItem(int region, const QString &name, const QRectF &box, bool badgeOnTop)
    : m_region(region), m_name(name), m_rect(QPointF(), box.size()), m_badgeOnTop(badgeOnTop) {
    setPos(box.topLeft());
    setZValue(0);
    setCacheMode(QGraphicsItem::DeviceCoordinateCache); // see NodeItem
}

void RegionItem::setPartitioned(bool on) {
    if (on == m_partitioned)
        return;
    prepareGeometryChange(); // the badge joins the shape
    m_partitioned = on;
    update();
}

void RegionItem::setRing(bool on) {
    if (on == m_ring)
        return;
    m_ring = on;
    update();
}

void RegionItem::setPalette(const TopologyPalette &palette) {
    m_palette = palette;
    update();
}

QRectF RegionItem::badgeRect() const {
    const qreal width = QFontMetricsF(topologyFont(M::kLabelPixels - 1, true)).horizontalAdvance(badgeText()) + 10;
    // Right-aligned under the title's end; centred when wider than a narrow box.
    const qreal left = width + 2 * kBoxRadius <= m_rect.width() ? m_rect.right() - kBoxRadius - width
                                                                : m_rect.center().x() - width / 2;
    const qreal h = M::kBadgeHeight - 1;
    return QRectF(left, m_badgeOnTop ? m_rect.top() - h + 1 : m_rect.bottom() - 1, width, h);
}

QRectF RegionItem::boundingRect() const {
    const qreal out = kRingGap + kRingWidth;
    return m_rect.adjusted(-out, -out, out, out).united(badgeRect());
}

QPainterPath RegionItem::shape() const {
    QPainterPath path;
    path.addRoundedRect(m_rect, kBoxRadius, kBoxRadius);
    if (m_partitioned)
        path.addRect(badgeRect());
    return path;
}

void RegionItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) {
    painter->setRenderHint(QPainter::Antialiasing);
    if (m_ring) {
        painter->setPen(QPen(m_palette.highlight, kRingWidth));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_rect.adjusted(-kRingGap, -kRingGap, kRingGap, kRingGap), kBoxRadius + kRingGap,
                                 kBoxRadius + kRingGap);
    }
    painter->setPen(m_partitioned ? QPen(downLinkColor(), 2) : QPen(m_palette.boxBorder, 1));
    painter->setBrush(m_palette.boxFill);
    painter->drawRoundedRect(m_rect.adjusted(0.5, 0.5, -0.5, -0.5), kBoxRadius, kBoxRadius);

    if (m_partitioned) {
        const QRectF badge = badgeRect();
        painter->setPen(Qt::NoPen);
        painter->setBrush(downLinkColor());
        painter->drawRoundedRect(badge, 3, 3);
        painter->setFont(topologyFont(M::kLabelPixels - 1, true));
        painter->setPen(Qt::white);
        painter->drawText(badge, Qt::AlignCenter, badgeText());
    }
    const QRectF title(M::kBoxPadding, 1, m_rect.width() - 2 * M::kBoxPadding, M::kTitleHeight - 2);
    const QFont font = topologyFont(M::kLabelPixels, true);
    painter->setFont(font);
    painter->setPen(m_palette.text);
    painter->drawText(title, Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetricsF(font).elidedText(m_name, Qt::ElideRight, title.width()));
}

LinkItem::LinkItem(const QPainterPath &path) : QGraphicsPathItem(path) { setAcceptedMouseButtons(Qt::NoButton); }

} // namespace synaptic::ui
