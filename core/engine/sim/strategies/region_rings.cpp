#include "region_rings.h"

namespace synaptic::engine {

std::vector<int> regionNodes(const ClusterShape &shape, int region) {
    std::vector<int> nodes;
    for (int e : shape.edgesOfRegion[std::size_t(region)])
        nodes.push_back(ClusterShape::nodeOfEdge(e));
    return nodes;
}

std::vector<int> leaderNodes(const ClusterShape &shape) {
    std::vector<int> nodes;
    for (int r = 0; r < shape.regionCount(); ++r)
        nodes.push_back(leaderOf(shape, r));
    return nodes;
}

} // namespace synaptic::engine
