#pragma once

#include "topology_items.h"
#include "topology_layout.h"
#include "topology_links.h"

#include <QGraphicsView>
#include <QHash>
#include <QMetaType>
#include <QPen>
#include <QStringList>
#include <QTimer>
#include <QVector>

namespace synaptic::ui {

struct TopologySelection {
    enum Kind { None, Center, Region, Edge } kind = None;
    int index = -1; // region or edge index; -1 for None and Center
    bool operator==(const TopologySelection &) const = default;
};

// The cluster as a graph (issue: "Topology view"): the center, regions as
// boxes holding their edges, links whose width and colour follow current
// bandwidth, nodes coloured by lease state, partitions dashed red. Takes plain
// data, so it knows nothing of the engine. Node ids are the engine's:
// 0 = center, edge e = node e + 1.
//
// GUI thread only. Live setters only store numbers and schedule one repaint
// pass for the next event-loop turn, so a burst of ~200 setLinkRate calls at
// 10 Hz costs one pass over the link items, never a scene rebuild. The
// accessors for tests apply a pending pass first.
class TopologyView : public QGraphicsView {
    Q_OBJECT
public:
    explicit TopologyView(QWidget *parent = nullptr);

    // Rebuilds the scene and forgets rates, modes, partitions and details.
    // Keeps the selection if it still names something.
    void setTopology(const QStringList &regionNames, const QStringList &edgeNames, const QVector<int> &regionOfEdge);
    void setEdgeMode(int edge, const QString &mode); // "training", "catching_up", "read_only", "down"
    void setCenterUp(bool up);
    // Current traffic of the directed link from→to (node ids) in bytes per second; the view draws the
    // undirected pair with the sum of both directions. Call repeatedly as new intervals arrive.
    void setLinkRate(int fromNode, int toNode, double bytesPerSecond);
    void setLinkDown(int nodeA, int nodeB, bool down);       // undirected
    void setRegionPartitioned(int region, bool partitioned); // every link out of the region is down
    void setNodeDetails(int node, const QString &text);      // extra tooltip lines
    // Geography (issue 14): a link's configured or live-set latency (one way)
    // and bandwidth, shown in its tooltip; a note on a node's own line (a
    // slow last mile) and on a region's links to the others and the center.
    // Kept until the next setTopology().
    void setLinkSpec(int nodeA, int nodeB, double latencySeconds, double bandwidthBitsPerSecond);
    void setNodeLinkNote(int node, const QString &text);
    void setRegionLinkNote(int region, const QString &text);
    void select(const TopologySelection &selection);         // emits selectionChanged if it changed
    TopologySelection selection() const { return m_selection; }

    // For tests and for the integrator's own hit tests: scene geometry,
    // the tooltip text, the fill colour and the drawn pen of a link.
    int edgeCount() const { return int(m_edgeNames.size()); }
    QPointF nodePosition(int node) const;
    QPointF regionPosition(int region) const;
    QRectF regionRect(int region) const;
    QString toolTipFor(int node) const; // name, region, mode, in/out bytes/s, plus setNodeDetails text
    QString linkToolTipFor(int nodeA, int nodeB) const; // empty if no such link is drawn
    QString regionToolTipFor(int region) const;
    QColor nodeColor(int node) const;
    QPen linkPen(int nodeA, int nodeB) const; // Qt::NoPen if no such link is drawn

Q_SIGNALS:
    void selectionChanged(const synaptic::ui::TopologySelection &selection);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void drawForeground(QPainter *painter, const QRectF &rect) override;
    void changeEvent(QEvent *event) override;

private:
    bool validNode(int node) const;
    int regionOf(int node) const; // -1 for the center
    QString nodeName(int node) const;
    TopologyLink *link(int a, int b, bool create); // null for a pair that cannot be linked
    bool isDown(const TopologyLink &link) const;
    void markDirty(int node);
    void scheduleRefresh();
    void refresh() const;
    TopologySelection normalised(const TopologySelection &selection) const; // None if it names nothing
    void setRing(const TopologySelection &selection, bool on);
    void refreshNode(int node); // fill and tooltip
    void refreshRegion(int region);
    void applyPalette();
    void refit();

    QGraphicsScene *m_scene;
    QStringList m_regionNames;
    QStringList m_edgeNames;
    QVector<int> m_regionOfEdge;
    TopologyLayout m_layout;
    QVector<NodeItem *> m_nodes;     // by node id; null for an edge without a valid region
    QVector<RegionItem *> m_regions; // by region index
    QVector<QString> m_modes;        // by edge index
    QVector<bool> m_partitioned;     // by region index
    QVector<QString> m_details;      // by node id
    QVector<QString> m_linkNotes;    // by node id
    QVector<QString> m_regionNotes;  // by region index
    QHash<quint64, QPair<double, double>> m_specs; // unordered node pair → (latency s, bandwidth b/s)
    QString specText(int a, int b) const;
    QVector<double> m_in, m_out;     // by node id, bytes/s
    bool m_centerUp = true;
    TopologySelection m_selection;
    TopologyPalette m_palette;
    // Pending repaint pass; mutable so the const accessors can apply it.
    mutable TopologyLinks m_links;
    mutable QVector<bool> m_dirtyNodes;
    mutable bool m_pending = false;
    mutable QTimer m_refreshTimer;
};

} // namespace synaptic::ui

Q_DECLARE_METATYPE(synaptic::ui::TopologySelection)
