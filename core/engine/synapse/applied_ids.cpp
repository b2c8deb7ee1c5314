#include "applied_ids.h"

namespace synaptic::engine {

bool AppliedIds::containsAll(const std::vector<std::uint64_t> &ids) const {
    if (ids.empty())
        return false;
    for (const std::uint64_t id : ids) {
        const auto edge = m_byEdge.find(id >> 40);
        if (edge == m_byEdge.end() || !edge->second.count(id))
            return false;
    }
    return true;
}

void AppliedIds::insert(const std::vector<std::uint64_t> &ids) {
    for (const std::uint64_t id : ids) {
        auto &mine = m_byEdge[id >> 40];
        mine.insert(id);
        while (mine.size() > kPerEdge)
            mine.erase(mine.begin()); // the oldest window (incarnation bits sit above it)
    }
}

std::vector<std::uint64_t> AppliedIds::ids() const {
    std::vector<std::uint64_t> out;
    for (const auto &[edge, mine] : m_byEdge)
        out.insert(out.end(), mine.begin(), mine.end());
    return out;
}

} // namespace synaptic::engine
