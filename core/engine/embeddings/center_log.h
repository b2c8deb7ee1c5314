#pragma once

#include "row_delta.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace synaptic::engine {

// The center's side of the embedding sync: every region's own changes per
// shard, logged by sequence number, and what each region reported it has
// applied from every origin. A report is answered with every change of
// another origin that region lacks (with hot updates off, that is how rows
// cross regions; with them on, it fills what the hot path lost), and a change
// is forgotten once every region has applied it. No I/O. Engine thread.
class EmbeddingCenterLog {
public:
    EmbeddingCenterLog(int shards, int regions);

    struct Missing {
        int origin;
        std::uint64_t seq;
        RowDelta change;
    };
    struct Answer {
        std::uint64_t acknowledged = 0; // the reporter's own changes logged up to here
        std::vector<Missing> missing;
        std::uint64_t bytes = 0;        // the answer on the wire
    };
    Answer report(int region, int shard, const std::vector<std::pair<std::uint64_t, RowDelta>> &ownChanges,
                  const std::vector<std::uint64_t> &frontier);

    // Changes held for `shard` (all origins): bounded by what some region still lacks.
    std::size_t held(int shard) const;
    // Changes logged for `shard` from every origin: the center's version of it.
    std::uint64_t logged(int shard) const;

private:
    std::vector<std::vector<std::map<std::uint64_t, RowDelta>>> m_log;   // [shard][origin]
    std::vector<std::vector<std::vector<std::uint64_t>>> m_frontier;     // [shard][region][origin]
    std::vector<std::vector<std::uint64_t>> m_logged;                    // [shard][origin]
};

} // namespace synaptic::engine
