#pragma once

#include "cluster_config.h"
#include "link.h"

#include <optional>
#include <vector>

namespace synaptic::engine {

// Which link spec a pair of nodes starts with (issue 14 "geography"): the
// class of the pair (inside a region, region to region, edge to center),
// overridden per region pair or per region's center link when the config
// names one, then each end's last mile on top (latency adds, bandwidth is
// the smaller, loss compounds). The simulator's and the live transport's
// links start from it, and the views show it. Holds copies, not the config.
// Node ids are the engine's: 0 = center, edge e = node e + 1 (config order).
class LinkGeography {
public:
    explicit LinkGeography(const ClusterConfig &config);

    LinkSpec between(int nodeA, int nodeB) const;     // the same both ways; up
    LinkSpec regionLink(int regionA, int regionB) const; // same region: intra_region
    LinkSpec centerLink(int region) const;
    const std::optional<LastMile> &lastMile(int edge) const { return m_lastMile[std::size_t(edge)]; }
    int regionOfEdge(int edge) const { return m_regionOfEdge[std::size_t(edge)]; }
    int edgeCount() const { return int(m_regionOfEdge.size()); }
    int regionCount() const { return m_regions; }

    static LinkSpec withLastMile(LinkSpec spec, const LastMile &mile);

    // The rate of a node's own interface, shared by all its links in each
    // direction (config.edgeInterfaceBitsPerSecond, center...), 0 for none.
    // An edge's last mile caps its interface when interfaces are modelled.
    double interfaceBitsPerSecond(int node) const;
    bool modelsInterfaces() const { return m_edgeInterface > 0 || m_centerInterface > 0; }

private:
    int m_regions = 0;
    std::vector<int> m_regionOfEdge;
    std::vector<std::optional<LastMile>> m_lastMile;
    std::vector<LinkSpec> m_pairs;  // m_regions × m_regions, the diagonal is intra_region
    std::vector<LinkSpec> m_center; // per region
    double m_edgeInterface = 0;
    double m_centerInterface = 0;
};

} // namespace synaptic::engine
