#pragma once

#include "cluster_config.h"

#include <string>

namespace synaptic::engine {

// The config as JSON that parseClusterConfig() reads back to an identical
// ClusterConfig, every double bit for bit (a recording stores it so a rerun
// reproduces the run; configs made in the GUI have no file to copy).
std::string clusterConfigToJson(const ClusterConfig &config);

} // namespace synaptic::engine
