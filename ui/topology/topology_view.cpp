#include "topology_view.h"

#include "topology_legend.h"
#include "topology_style.h"
#include "topology_tooltips.h"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

namespace {
constexpr int kFitMargin = 8; // viewport pixels kept clear around the graph
} // namespace

TopologyView::TopologyView(QWidget *parent) : QGraphicsView(parent), m_scene(new QGraphicsScene(this)) {
    // A few hundred items whose pens change ten times a second: a spatial
    // index would be rebuilt more often than it is queried.
    m_scene->setItemIndexMethod(QGraphicsScene::NoIndex);
    setScene(m_scene);
    setRenderHint(QPainter::Antialiasing);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::NoFrame);
    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(0);
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] { refresh(); });
    m_palette = TopologyPalette::from(palette());
    setBackgroundBrush(m_palette.background);
    setTopology({}, {}, {});
}

bool TopologyView::validNode(int node) const { return node >= 0 && node < m_nodes.size() && m_nodes[node]; }

int TopologyView::regionOf(int node) const { return node > 0 ? m_regionOfEdge[node - 1] : -1; }

QString TopologyView::nodeName(int node) const { return node == 0 ? tr("center") : m_edgeNames[node - 1]; }

void TopologyView::setTopology(const QStringList &regionNames, const QStringList &edgeNames,
                               const QVector<int> &regionOfEdge) {
    m_scene->clear();
    m_links.clear();
    m_regionNames = regionNames;
    m_edgeNames = edgeNames;
    m_regionOfEdge = regionOfEdge;
    m_regionOfEdge.resize(edgeNames.size(), -1);
    for (int e = 0; e < m_regionOfEdge.size(); ++e) {
        if (m_regionOfEdge[e] < 0 || m_regionOfEdge[e] >= regionNames.size()) {
            qWarning("TopologyView: edge %s has no valid region and is not drawn", qPrintable(edgeNames[e]));
            m_regionOfEdge[e] = -1;
        }
    }
    const int nodes = int(edgeNames.size()) + 1;
    m_layout = layoutTopology(int(regionNames.size()), m_regionOfEdge);
    m_modes = QVector<QString>(edgeNames.size());
    m_partitioned = QVector<bool>(regionNames.size(), false);
    m_details = QVector<QString>(nodes);
    m_linkNotes = QVector<QString>(nodes);
    m_regionNotes = QVector<QString>(regionNames.size());
    m_specs.clear();
    m_in = m_out = QVector<double>(nodes, 0.0);
    m_dirtyNodes = QVector<bool>(nodes, true);
    m_centerUp = true;

    m_regions.clear();
    for (int r = 0; r < regionNames.size(); ++r) {
        m_regions.append(new RegionItem(r, regionNames[r], m_layout.regionBoxes[r], m_layout.centerBelow(r)));
        m_scene->addItem(m_regions.back());
    }
    m_nodes = QVector<NodeItem *>(nodes, nullptr);
    m_nodes[0] = new NodeItem(0, tr("center"), true);
    m_nodes[0]->setPos(m_layout.center);
    m_scene->addItem(m_nodes[0]);
    for (int e = 0; e < edgeNames.size(); ++e) {
        if (m_regionOfEdge[e] < 0)
            continue;
        m_nodes[e + 1] = new NodeItem(e + 1, edgeNames[e], false);
        m_nodes[e + 1]->setPos(m_layout.edgePositions[e]);
        m_scene->addItem(m_nodes[e + 1]);
        link(0, e + 1, true);
    }
    for (int node = 0; node < nodes; ++node)
        if (m_nodes[node])
            refreshNode(node);
    for (int r = 0; r < m_regions.size(); ++r)
        refreshRegion(r);
    applyPalette();
    refresh();

    refit();
    // The old selection's items are gone with the scene: ring the new ones, or
    // fall back to None if the selection no longer names anything.
    const TopologySelection kept = m_selection;
    m_selection = normalised(kept);
    setRing(m_selection, true);
    if (!(m_selection == kept))
        Q_EMIT selectionChanged(m_selection);
}

TopologyLink *TopologyView::link(int a, int b, bool create) {
    if (a == b || !validNode(a) || !validNode(b))
        return nullptr;
    if (TopologyLink *found = m_links.find(a, b); found || !create)
        return found;
    const int edge = std::max(a, b) - 1;
    const QPainterPath path =
        std::min(a, b) == 0 ? centerLinkPath(m_nodes[edge + 1]->pos(), m_layout.centerPorts[edge], m_layout.center)
                            : edgeLinkPath(m_nodes[a]->pos(), m_nodes[b]->pos(), regionOf(a) == regionOf(b));
    return &m_links.add(m_scene, a, b, path);
}

bool TopologyView::isDown(const TopologyLink &link) const {
    if (link.down)
        return true;
    const int ra = regionOf(link.a);
    const int rb = regionOf(link.b);
    if (ra == rb)
        return false; // inside a region: a partition cuts the region off, not its own links
    return (ra >= 0 && m_partitioned[ra]) || (rb >= 0 && m_partitioned[rb]);
}

void TopologyView::setEdgeMode(int edge, const QString &mode) {
    if (edge < 0 || !validNode(edge + 1) || m_modes[edge] == mode)
        return;
    m_modes[edge] = mode;
    refreshNode(edge + 1);
}

void TopologyView::setCenterUp(bool up) {
    if (up == m_centerUp)
        return;
    m_centerUp = up;
    refreshNode(0);
}

void TopologyView::setLinkRate(int fromNode, int toNode, double bytesPerSecond) {
    const double rate = bytesPerSecond > 0 && std::isfinite(bytesPerSecond) ? bytesPerSecond : 0;
    TopologyLink *l = link(fromNode, toNode, rate > 0);
    if (!l)
        return;
    const double change = m_links.setRate(*l, fromNode, rate);
    if (change == 0)
        return;
    m_out[fromNode] += change;
    m_in[toNode] += change;
    markDirty(fromNode);
    markDirty(toNode);
}

void TopologyView::setLinkDown(int nodeA, int nodeB, bool down) {
    TopologyLink *l = link(nodeA, nodeB, down);
    if (!l || l->down == down)
        return;
    l->down = down;
    l->dirty = true;
    scheduleRefresh();
}

void TopologyView::setRegionPartitioned(int region, bool partitioned) {
    if (region < 0 || region >= m_partitioned.size() || m_partitioned[region] == partitioned)
        return;
    m_partitioned[region] = partitioned;
    refreshRegion(region);
    m_links.markAllDirty([&](const TopologyLink &l) { return regionOf(l.a) == region || regionOf(l.b) == region; });
    for (int e = 0; e < m_regionOfEdge.size(); ++e)
        if (m_regionOfEdge[e] == region)
            markDirty(e + 1);
    scheduleRefresh();
}

void TopologyView::setNodeDetails(int node, const QString &text) {
    if (!validNode(node) || m_details[node] == text)
        return;
    m_details[node] = text;
    refreshNode(node);
}

namespace {
quint64 pairKey(int a, int b) { return (quint64(quint32(std::min(a, b))) << 32) | quint32(std::max(a, b)); }
} // namespace

void TopologyView::setLinkSpec(int nodeA, int nodeB, double latencySeconds, double bandwidthBitsPerSecond) {
    if (nodeA == nodeB || !validNode(nodeA) || !validNode(nodeB))
        return;
    const QPair<double, double> spec{latencySeconds, bandwidthBitsPerSecond};
    auto it = m_specs.find(pairKey(nodeA, nodeB));
    if (it != m_specs.end() && *it == spec)
        return;
    m_specs.insert(pairKey(nodeA, nodeB), spec);
    if (TopologyLink *l = link(nodeA, nodeB, false)) {
        l->dirty = true;
        scheduleRefresh();
    }
}

QString TopologyView::specText(int a, int b) const {
    const auto it = m_specs.constFind(pairKey(a, b));
    return it == m_specs.cend() ? QString() : linkFigures(it->first, it->second);
}

void TopologyView::setNodeLinkNote(int node, const QString &text) {
    if (!validNode(node) || m_linkNotes[node] == text)
        return;
    m_linkNotes[node] = text;
    refreshNode(node);
}

void TopologyView::setRegionLinkNote(int region, const QString &text) {
    if (region < 0 || region >= m_regions.size() || m_regionNotes[region] == text)
        return;
    m_regionNotes[region] = text;
    refreshRegion(region);
}

QString TopologyView::linkToolTipFor(int nodeA, int nodeB) const {
    if (m_pending)
        refresh();
    return m_links.toolTip(nodeA, nodeB);
}

QString TopologyView::regionToolTipFor(int region) const {
    return region >= 0 && region < m_regions.size() ? m_regions[region]->toolTip() : QString();
}

void TopologyView::markDirty(int node) {
    m_dirtyNodes[node] = true;
    scheduleRefresh();
}

void TopologyView::scheduleRefresh() {
    m_pending = true;
    if (!m_refreshTimer.isActive())
        m_refreshTimer.start();
}

// The coalesced pass: at most once per event-loop turn, however many setters ran.
void TopologyView::refresh() const {
    m_pending = false;
    m_refreshTimer.stop();
    m_links.restyle([this](const TopologyLink &l) { return isDown(l); },
                    [this](const TopologyLink &l, bool down) {
                        return linkToolTip(nodeName(l.a), nodeName(l.b), l.ab, l.ba, down, specText(l.a, l.b));
                    });
    for (int node = 0; node < m_dirtyNodes.size(); ++node) {
        if (m_dirtyNodes[node] && m_nodes[node])
            m_nodes[node]->setToolTip(toolTipFor(node));
        m_dirtyNodes[node] = false;
    }
}

QString TopologyView::toolTipFor(int node) const {
    if (!validNode(node))
        return {};
    QString details = m_linkNotes[node];
    if (!m_details[node].isEmpty())
        details += (details.isEmpty() ? QString() : QStringLiteral("\n")) + m_details[node];
    if (node == 0)
        return nodeToolTip(nodeName(0), {}, m_centerUp ? tr("up") : tr("down"), false, m_in[0], m_out[0], details);
    const int region = regionOf(node);
    return nodeToolTip(nodeName(node), m_regionNames[region], modeLabel(m_modes[node - 1]), m_partitioned[region],
                       m_in[node], m_out[node], details);
}

void TopologyView::refreshNode(int node) {
    if (node == 0)
        m_nodes[0]->setFill(centerColor(m_centerUp), !m_centerUp);
    else
        m_nodes[node]->setFill(modeColor(m_modes[node - 1]), m_modes[node - 1] == QLatin1String("down") ||
                                                                  m_modes[node - 1] == QLatin1String("left"));
    m_nodes[node]->setToolTip(toolTipFor(node));
}

void TopologyView::refreshRegion(int region) {
    const int edges = int(std::count(m_regionOfEdge.begin(), m_regionOfEdge.end(), region));
    m_regions[region]->setPartitioned(m_partitioned[region]);
    m_regions[region]->setToolTip(
        regionToolTip(m_regionNames[region], edges, m_partitioned[region], m_regionNotes.value(region)));
}

TopologySelection TopologyView::normalised(const TopologySelection &selection) const {
    switch (selection.kind) {
    case TopologySelection::Center:
        return {TopologySelection::Center, -1};
    case TopologySelection::Region:
        return selection.index >= 0 && selection.index < m_regions.size() ? selection : TopologySelection{};
    case TopologySelection::Edge:
        return selection.index >= 0 && validNode(selection.index + 1) ? selection : TopologySelection{};
    default:
        return {};
    }
}

void TopologyView::setRing(const TopologySelection &selection, bool on) {
    if (selection.kind == TopologySelection::Center)
        m_nodes[0]->setRing(on);
    else if (selection.kind == TopologySelection::Edge)
        m_nodes[selection.index + 1]->setRing(on);
    else if (selection.kind == TopologySelection::Region)
        m_regions[selection.index]->setRing(on);
}

void TopologyView::select(const TopologySelection &selection) {
    const TopologySelection next = normalised(selection);
    if (next == m_selection)
        return;
    setRing(m_selection, false);
    setRing(next, true);
    m_selection = next;
    Q_EMIT selectionChanged(m_selection);
}

QPointF TopologyView::nodePosition(int node) const { return validNode(node) ? m_nodes[node]->pos() : QPointF(); }

QRectF TopologyView::regionRect(int region) const {
    return region >= 0 && region < m_layout.regionBoxes.size() ? m_layout.regionBoxes[region] : QRectF();
}

QPointF TopologyView::regionPosition(int region) const { return regionRect(region).center(); }

QColor TopologyView::nodeColor(int node) const { return validNode(node) ? m_nodes[node]->fill() : QColor(); }

QPen TopologyView::linkPen(int nodeA, int nodeB) const {
    if (m_pending)
        refresh();
    return m_links.pen(nodeA, nodeB);
}

void TopologyView::mousePressEvent(QMouseEvent *event) {
    if (event->button() != Qt::LeftButton)
        return QGraphicsView::mousePressEvent(event);
    // Links are transparent to clicks: what counts is the node or box under them.
    TopologySelection picked;
    for (QGraphicsItem *item : items(event->position().toPoint())) {
        if (auto *node = qgraphicsitem_cast<NodeItem *>(item)) {
            picked = node->node() == 0 ? TopologySelection{TopologySelection::Center, -1}
                                       : TopologySelection{TopologySelection::Edge, node->node() - 1};
            break;
        }
        if (auto *region = qgraphicsitem_cast<RegionItem *>(item)) {
            picked = {TopologySelection::Region, region->region()};
            break;
        }
    }
    select(picked);
    event->accept();
}

// Fits the graph into the viewport above the legend strip, keeping its aspect
// ratio, and pins the view's scene rect to exactly the viewport so nothing scrolls.
void TopologyView::refit() {
    const QSize port = viewport()->size();
    const int legend = topologyLegendHeight(port.width());
    const QSizeF room(port.width() - 2 * kFitMargin, port.height() - legend - 2 * kFitMargin);
    const qreal zoom = std::max<qreal>(0.05, fitZoom(m_layout.bounds, room));
    setTransform(QTransform::fromScale(zoom, zoom));
    const QPointF offset(port.width() / 2.0, (port.height() - legend) / 2.0);
    setSceneRect(QRectF(m_layout.bounds.center() - offset / zoom, QSizeF(port) / zoom));
}

void TopologyView::resizeEvent(QResizeEvent *event) {
    QGraphicsView::resizeEvent(event);
    refit();
}

void TopologyView::drawForeground(QPainter *painter, const QRectF &rect) {
    QGraphicsView::drawForeground(painter, rect);
    // Laying out the legend's text costs more than blitting the graph: skip it
    // when this repaint (a link's new width, say) does not reach the strip.
    const int strip = topologyLegendHeight(viewport()->width());
    const QRect legend(0, viewport()->height() - strip, viewport()->width(), strip);
    if (!mapToScene(legend).boundingRect().intersects(rect))
        return;
    painter->save();
    painter->resetTransform(); // the legend is in viewport pixels, not scene units
    paintTopologyLegend(painter, viewport()->rect(), m_palette);
    painter->restore();
}

void TopologyView::applyPalette() {
    m_palette = TopologyPalette::from(palette());
    setBackgroundBrush(m_palette.background);
    for (NodeItem *node : std::as_const(m_nodes))
        if (node)
            node->setPalette(m_palette);
    for (RegionItem *region : std::as_const(m_regions))
        region->setPalette(m_palette);
    viewport()->update();
}

void TopologyView::changeEvent(QEvent *event) {
    QGraphicsView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

} // namespace synaptic::ui
