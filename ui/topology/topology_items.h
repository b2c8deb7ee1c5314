#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QString>

class QPalette;

namespace synaptic::ui {

// Colours that follow the application theme (dark or light); state colours
// live in topology_style.h and do not change with the theme.
struct TopologyPalette {
    QColor background, text, dimText, boxFill, boxBorder, highlight;
    QColor labelBack; // opaque box fill: hides the links passing behind a label
    static TopologyPalette from(const QPalette &palette);
};

// Scene pixel font shared by node and region labels: pixel-sized so the
// layout's cell sizes hold on any screen DPI.
QFont topologyFont(qreal pixels, bool bold = false);

// The center or one edge: a filled circle (colour = state) with its name, and a
// ring when selected. Painted by hand rather than as child items so that
// hovering or clicking the label counts as the node.
class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    NodeItem(int node, const QString &name, bool isCenter);

    int type() const override { return Type; }
    int node() const { return m_node; }
    void setFill(const QColor &fill, bool down);
    QColor fill() const { return m_fill; }
    void setRing(bool on);
    void setPalette(const TopologyPalette &palette);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    qreal radius() const;
    int m_node;
    bool m_center;
    QString m_label; // elided to the layout cell
    qreal m_labelWidth;
    QColor m_fill;
    bool m_down = false;
    bool m_ring = false;
    TopologyPalette m_palette;
};

// A region: rounded box with its name; outlined red with a red "partitioned"
// tab when cut off from the rest. The tab hangs on the side away from the
// center (`badgeOnTop`), where no links run and even a one-column box has room.
// The fill is opaque: center links run beneath it to their ports on the box
// border, and crossing inside the box they would only be noise.
class RegionItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    RegionItem(int region, const QString &name, const QRectF &box, bool badgeOnTop);

    int type() const override { return Type; }
    int region() const { return m_region; }
    void setPartitioned(bool on);
    void setRing(bool on);
    void setPalette(const TopologyPalette &palette);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    int m_region;
    QString m_name;
    QRectF badgeRect() const;
    QRectF m_rect; // local, origin at the box's top left
    bool m_badgeOnTop;
    bool m_partitioned = false;
    bool m_ring = false;
    TopologyPalette m_palette;
};

// One undirected link along a path from topology_layout.h. Transparent to
// clicks: the node or box beneath is what gets selected.
class LinkItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 3 };
    explicit LinkItem(const QPainterPath &path);
    int type() const override { return Type; }
};

} // namespace synaptic::ui
