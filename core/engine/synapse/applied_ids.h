#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace synaptic::engine {

// The contributions an owner applied to one shard (issue 15 §3): a window
// gradient that arrives twice (a duplicating link, a retransmission, a
// forward racing its original) is applied once. Contribution ids carry
// their edge in the bits above 40 (synaptic_edge.cpp); the newest kPerEdge
// ids of each edge are kept, enough because an owner refuses gradients
// more than 16 versions old anyway. Moves with the shard on a handoff.
class AppliedIds {
public:
    static constexpr std::size_t kPerEdge = 256;

    // True when every id is already applied (false for no ids).
    bool containsAll(const std::vector<std::uint64_t> &ids) const;
    void insert(const std::vector<std::uint64_t> &ids);
    std::vector<std::uint64_t> ids() const;

private:
    std::map<std::uint64_t, std::set<std::uint64_t>> m_byEdge;
};

} // namespace synaptic::engine
