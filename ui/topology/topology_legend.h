#pragma once

#include <QRect>

class QPainter;

namespace synaptic::ui {

struct TopologyPalette;

// The key to the view's colours and lines, painted in viewport pixels as a
// strip along the bottom edge. The view keeps the graph out of that strip, so
// the legend never covers a node whatever the cluster size.
int topologyLegendHeight(int viewportWidth);
void paintTopologyLegend(QPainter *painter, const QRect &viewport, const TopologyPalette &palette);

} // namespace synaptic::ui
