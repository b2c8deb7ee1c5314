#include "center_log.h"

#include <algorithm>

namespace synaptic::engine {

EmbeddingCenterLog::EmbeddingCenterLog(int shards, int regions)
    : m_log(std::size_t(shards), std::vector<std::map<std::uint64_t, RowDelta>>(std::size_t(regions))),
      m_frontier(std::size_t(shards),
                 std::vector<std::vector<std::uint64_t>>(std::size_t(regions),
                                                         std::vector<std::uint64_t>(std::size_t(regions), 0))),
      m_logged(std::size_t(shards), std::vector<std::uint64_t>(std::size_t(regions), 0)) {}

EmbeddingCenterLog::Answer EmbeddingCenterLog::report(int region, int shard,
                                                      const std::vector<std::pair<std::uint64_t, RowDelta>> &ownChanges,
                                                      const std::vector<std::uint64_t> &frontier) {
    auto &log = m_log[std::size_t(shard)];
    auto &logged = m_logged[std::size_t(shard)][std::size_t(region)];
    for (const auto &[seq, change] : ownChanges) {
        // Changes come again until acknowledged, so a repeat is expected;
        // one below what every region applied was already forgotten.
        if (seq > logged)
            log[std::size_t(region)].emplace(seq, change);
        logged = std::max(logged, seq);
    }
    m_frontier[std::size_t(shard)][std::size_t(region)] = frontier;

    Answer answer;
    answer.acknowledged = logged;
    answer.bytes = 24; // shard, acknowledgement, count
    for (int origin = 0; origin < int(log.size()); ++origin) {
        if (origin == region)
            continue;
        for (auto it = log[std::size_t(origin)].upper_bound(frontier[std::size_t(origin)]);
             it != log[std::size_t(origin)].end(); ++it) {
            answer.missing.push_back({origin, it->first, it->second});
            answer.bytes += it->second.wireBytes() + 16; // plus origin and sequence
        }
    }
    // Forget what every region has applied.
    for (int origin = 0; origin < int(log.size()); ++origin) {
        std::uint64_t everyone = UINT64_MAX;
        for (const auto &f : m_frontier[std::size_t(shard)])
            everyone = std::min(everyone, f[std::size_t(origin)]);
        auto &entries = log[std::size_t(origin)];
        entries.erase(entries.begin(), entries.upper_bound(everyone));
    }
    return answer;
}

std::size_t EmbeddingCenterLog::held(int shard) const {
    std::size_t n = 0;
    for (const auto &origin : m_log[std::size_t(shard)])
        n += origin.size();
    return n;
}

std::uint64_t EmbeddingCenterLog::logged(int shard) const {
    std::uint64_t total = 0;
    for (auto n : m_logged.at(std::size_t(shard)))
        total += n;
    return total;
}

} // namespace synaptic::engine
