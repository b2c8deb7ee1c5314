#include "topology_links.h"

#include "topology_items.h"
#include "topology_style.h"

#include <QGraphicsScene>

#include <algorithm>

namespace synaptic::ui {

quint64 TopologyLinks::key(int a, int b) { return (quint64(quint32(std::min(a, b))) << 32) | quint32(std::max(a, b)); }

TopologyLink *TopologyLinks::find(int a, int b) {
    const auto it = m_links.find(key(a, b));
    return it == m_links.end() ? nullptr : &*it;
}

const TopologyLink *TopologyLinks::find(int a, int b) const {
    const auto it = m_links.constFind(key(a, b));
    return it == m_links.cend() ? nullptr : &*it;
}

TopologyLink &TopologyLinks::add(QGraphicsScene *scene, int a, int b, const QPainterPath &path) {
    TopologyLink link;
    link.a = std::min(a, b);
    link.b = std::max(a, b);
    link.item = new LinkItem(path);
    // Center links run under the boxes to their ports, so inside a box they
    // do not cross the edges; links between edges must show inside the boxes.
    link.item->setZValue(link.toCenter() ? -1 : 1);
    link.item->setVisible(link.toCenter());
    link.item->setPen(linkPenFor(0, 0, false));
    scene->addItem(link.item);
    return *m_links.insert(key(a, b), link);
}

double TopologyLinks::setRate(TopologyLink &link, int from, double bytesPerSecond) {
    double &slot = from == link.a ? link.ab : link.ba;
    const double change = bytesPerSecond - slot;
    slot = bytesPerSecond;
    link.carried = link.carried || bytesPerSecond > 0;
    link.dirty = link.dirty || change != 0;
    return change;
}

void TopologyLinks::restyle(const std::function<bool(const TopologyLink &)> &isDown,
                            const std::function<QString(const TopologyLink &, bool)> &toolTip) {
    double busiest = 0;
    for (const TopologyLink &link : std::as_const(m_links))
        busiest = std::max(busiest, link.total());
    for (TopologyLink &link : m_links) {
        const bool down = isDown(link);
        link.item->setVisible(link.toCenter() || link.carried || down);
        const QPen pen = linkPenFor(link.total(), busiest, down);
        if (link.item->pen() != pen)
            link.item->setPen(pen);
        if (link.dirty) {
            link.item->setToolTip(toolTip(link, down));
            link.dirty = false;
        }
    }
}

QPen TopologyLinks::pen(int a, int b) const {
    const TopologyLink *link = a == b ? nullptr : find(a, b);
    return link && link->item->isVisible() ? link->item->pen() : QPen(Qt::NoPen);
}

QString TopologyLinks::toolTip(int a, int b) const {
    const TopologyLink *link = a == b ? nullptr : find(a, b);
    return link && link->item->isVisible() ? link->item->toolTip() : QString();
}

void TopologyLinks::markAllDirty(const std::function<bool(const TopologyLink &)> &which) {
    for (TopologyLink &link : m_links)
        link.dirty = link.dirty || which(link);
}

} // namespace synaptic::ui
