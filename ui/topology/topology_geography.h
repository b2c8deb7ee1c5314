#pragma once

#include "core/engine/sim/cluster_config.h"

namespace synaptic::ui {

class TopologyView;

// Puts the config's geography (issue 14) on the view: every link's latency
// and bandwidth as the links start (LinkGeography: region pairs, center
// links, last miles), each region's links to the other regions and to the
// center, and each edge's last mile. Call after every setTopology(). GUI thread.
void showGeography(TopologyView &view, const engine::ClusterConfig &config);

} // namespace synaptic::ui
