#include "held_shares.h"

#include <algorithm>

namespace synaptic::ui {

HeldStats heldStats(const HeldShares *held, int shard) {
    HeldStats s;
    if (!held || shard < 0 || std::size_t(shard) >= held->size() || (*held)[std::size_t(shard)].empty())
        return s;
    const auto &perEdge = (*held)[std::size_t(shard)];
    double sum = 0;
    for (float v : perEdge) {
        sum += v;
        s.min = std::min(s.min, double(v));
    }
    s.mean = sum / double(perEdge.size());
    s.partial = true;
    return s;
}

double edgeHeldShare(const HeldShares *held, const engine::RoutingSnapshot &snapshot, int edge) {
    if (!held || edge < 0)
        return -1;
    double rows = 0, heldRows = 0;
    for (std::size_t s = 0; s < held->size() && s < snapshot.rows.size(); ++s) {
        const auto &perEdge = (*held)[s];
        if (perEdge.empty() || std::size_t(edge) >= perEdge.size())
            continue;
        const auto &spec = snapshot.rows[s]->shard;
        const double n = double(spec.rowEnd - spec.rowBegin);
        rows += n;
        heldRows += n * double(perEdge[std::size_t(edge)]);
    }
    return rows > 0 ? heldRows / rows : -1;
}

} // namespace synaptic::ui
