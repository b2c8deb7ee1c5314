#pragma once

#include <QHash>
#include <QPainterPath>
#include <QPen>

#include <functional>

class QGraphicsScene;

namespace synaptic::ui {

class LinkItem;

// One undirected link between two nodes (ids as the engine's: 0 = center).
struct TopologyLink {
    int a = 0, b = 0;         // node ids, a < b
    double ab = 0, ba = 0;    // bytes/s in each direction
    bool down = false;        // cut by setLinkDown (a region partition is applied on top)
    bool carried = false;     // ever had traffic: only such edge↔edge links are drawn
    bool dirty = true;        // its tooltip needs rewriting
    LinkItem *item = nullptr; // owned by the scene
    double total() const { return ab + ba; }
    bool toCenter() const { return a == 0; }
};

// The view's links keyed by their unordered pair, with the items drawing them.
// Restyling is one pass because widths are relative to the busiest link, so
// any rate change can restyle them all. GUI thread only.
class TopologyLinks {
public:
    void clear() { m_links.clear(); } // the items go with the scene
    TopologyLink *find(int a, int b);
    const TopologyLink *find(int a, int b) const;
    // Creates the link's item, drawn along `path`, in `scene`.
    TopologyLink &add(QGraphicsScene *scene, int a, int b, const QPainterPath &path);
    // Stores the from→to rate; returns how much it changed, for per-node totals.
    double setRate(TopologyLink &link, int from, double bytesPerSecond);
    // Sets every item's pen and visibility (pens only where they differ, so
    // SmartViewportUpdate repaints just the links that changed), and the
    // tooltips of dirty links.
    void restyle(const std::function<bool(const TopologyLink &)> &isDown,
                 const std::function<QString(const TopologyLink &, bool down)> &toolTip);
    QPen pen(int a, int b) const; // Qt::NoPen where nothing is drawn
    QString toolTip(int a, int b) const; // empty where nothing is drawn
    void markAllDirty(const std::function<bool(const TopologyLink &)> &which);

private:
    static quint64 key(int a, int b);
    QHash<quint64, TopologyLink> m_links;
};

} // namespace synaptic::ui
