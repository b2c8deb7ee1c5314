#include "link_geography.h"

#include <algorithm>

namespace synaptic::engine {

LinkGeography::LinkGeography(const ClusterConfig &config)
    : m_regions(int(config.regions.size())), m_edgeInterface(config.edgeInterfaceBitsPerSecond),
      m_centerInterface(config.centerInterfaceBitsPerSecond) {
    auto index = [&](const std::string &name) {
        for (int r = 0; r < m_regions; ++r)
            if (config.regions[std::size_t(r)].name == name)
                return r;
        return -1; // the parser refuses unknown names; a hand-built config may still have one
    };
    m_pairs.assign(std::size_t(m_regions * m_regions), config.interRegion);
    for (int r = 0; r < m_regions; ++r)
        m_pairs[std::size_t(r * m_regions + r)] = config.intraRegion;
    for (const auto &p : config.regionLinks) {
        const int a = index(p.a), b = index(p.b);
        if (a < 0 || b < 0 || a == b)
            continue;
        m_pairs[std::size_t(a * m_regions + b)] = m_pairs[std::size_t(b * m_regions + a)] = p.spec;
    }
    m_center.assign(std::size_t(m_regions), config.edgeCenter);
    for (const auto &c : config.centerLinks)
        if (const int r = index(c.region); r >= 0)
            m_center[std::size_t(r)] = c.spec;
    for (int r = 0; r < m_regions; ++r)
        for (const auto &e : config.regions[std::size_t(r)].edges) {
            m_regionOfEdge.push_back(r);
            m_lastMile.push_back(e.lastMile);
        }
}

LinkSpec LinkGeography::regionLink(int regionA, int regionB) const {
    return m_pairs[std::size_t(regionA * m_regions + regionB)];
}

LinkSpec LinkGeography::centerLink(int region) const { return m_center[std::size_t(region)]; }

LinkSpec LinkGeography::withLastMile(LinkSpec spec, const LastMile &mile) {
    spec.latencySeconds += mile.latencySeconds;
    if (mile.bandwidthBitsPerSecond > 0)
        spec.bandwidthBitsPerSecond = std::min(spec.bandwidthBitsPerSecond, mile.bandwidthBitsPerSecond);
    spec.lossRate = 1 - (1 - spec.lossRate) * (1 - mile.lossRate);
    return spec;
}

double LinkGeography::interfaceBitsPerSecond(int node) const {
    if (node == 0)
        return m_centerInterface;
    if (m_edgeInterface <= 0)
        return 0; // a last mile alone keeps its per-link cap (the model before interfaces)
    const auto &mile = lastMile(node - 1);
    return mile && mile->bandwidthBitsPerSecond > 0 ? std::min(m_edgeInterface, mile->bandwidthBitsPerSecond)
                                                    : m_edgeInterface;
}

LinkSpec LinkGeography::between(int nodeA, int nodeB) const {
    if (nodeA == nodeB)
        return {0, 1e12, 0, true}; // a node's messages to itself never touch a link
    LinkSpec spec;
    const int edgeA = nodeA - 1, edgeB = nodeB - 1;
    if (nodeA == 0 || nodeB == 0)
        spec = centerLink(regionOfEdge(std::max(edgeA, edgeB)));
    else
        spec = regionLink(regionOfEdge(edgeA), regionOfEdge(edgeB));
    for (int edge : {edgeA, edgeB})
        if (edge >= 0 && lastMile(edge))
            spec = withLastMile(spec, *lastMile(edge));
    spec.up = true;
    return spec;
}

} // namespace synaptic::engine
