#pragma once
// The shipped 3 x 8 default and its edges' node ids, for tests of links
// and geography (node ids as the engine's: 0 = center, edge e = e + 1).
#include "core/engine/sim/cluster_config.h"

#include <QString>
#include <QtGlobal>

#include <string>

inline synaptic::engine::ClusterConfig shippedCluster() {
    return synaptic::engine::loadClusterConfig(qEnvironmentVariable("SYNAPTIC_RESOURCES").toStdString() +
                                               "/default_cluster.json");
}

// The node id of the edge named `edge`, -1 if there is none.
inline int nodeOf(const synaptic::engine::ClusterConfig &c, const std::string &edge) {
    int e = 0;
    for (const auto &r : c.regions)
        for (const auto &x : r.edges) {
            if (x.name == edge)
                return e + 1;
            ++e;
        }
    return -1;
}
