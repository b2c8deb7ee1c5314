#pragma once

#include "row_delta.h"

#include <cstdint>
#include <map>
#include <vector>

namespace synaptic::engine {

// An owner's state for one shard of a table (an embedding row range, or the
// classifier's rows): its copy of the rows, the region's gradients waiting for
// the next merge, the publishes it numbered, and what it applied from every
// other region's owner, by origin and sequence number. A change covers a range
// of its origin's numbers (a sender coalesces what queued behind a slow link);
// changes apply once and in order: duplicates are dropped, early ones wait.
// No I/O: the driver calls it and sends what it returns. Engine thread.
class EmbeddingOwner {
public:
    EmbeddingOwner(int shard, int region, int regions, std::int64_t begin, at::Tensor values);

    int shard() const { return m_shard; }
    VersionedRows &rows() { return m_rows; }

    // An edge's window of gradient rows for this shard.
    void addGradients(const std::vector<std::int64_t> &rows, const at::Tensor &grads);
    bool hasPending() const { return !m_pendingRows.empty(); }

    struct Merge {
        RowDelta change;   // to the other regions' owners (and the center log)
        std::uint64_t seq; // this owner's own-origin sequence number
        RowDelta publish;  // new values for the region's edges
        std::uint64_t publishSeq;
    };
    // Applies the pending gradients' mean over `contributors` edges (plain
    // SGD): prepare then applyOwn.
    Merge merge(double lr, int contributors);
    // The same in two halves, so an owner can apply its own change when the
    // other regions' owners do (it reaches them a WAN latency later): the
    // change and its sequence number now, applied to this copy later. Own
    // changes must be applied in the order they were prepared.
    struct Prepared {
        RowDelta change;
        std::uint64_t seq;
    };
    Prepared prepare(double lr, int contributors);
    Merge applyOwn(const Prepared &prepared);

    struct Applied {
        RowDelta publish;
        std::uint64_t publishSeq;
    };
    // Another region's change covering its numbers [from, to]; returns the
    // publishes it (and any change it unblocked) produced: none for a
    // duplicate, one that must wait, or one overlapping what already applied
    // (a coalesced sum cannot be split; the center's log fills the rest).
    std::vector<Applied> receiveChange(int origin, std::uint64_t from, std::uint64_t to, const RowDelta &change);
    std::uint64_t overlapsDropped() const { return m_overlapsDropped; }

    // Own-origin changes the center has not confirmed yet (sent again at every
    // sync until it does), and its confirmation of every change up to `seq`.
    const std::vector<std::pair<std::uint64_t, RowDelta>> &unreported() const { return m_unreported; }
    void acknowledge(std::uint64_t seq);
    const std::vector<std::uint64_t> &frontier() const { return m_frontier; }

    // Rows changed after publish `since`, stamped with the latest publish
    // number (an edge's catch-up).
    std::pair<RowDelta, std::uint64_t> catchUp(std::uint64_t since) const;
    std::uint64_t publishSeq() const { return m_publishSeq; }

private:
    Applied applyForeign(int origin, std::uint64_t to, const RowDelta &change);
    void notePublished(const std::vector<std::int64_t> &rows);

    struct Waiting {
        std::uint64_t to;
        RowDelta change;
    };

    int m_shard;
    int m_region;
    VersionedRows m_rows;
    std::vector<std::int64_t> m_pendingRows;
    std::vector<at::Tensor> m_pendingGrads;
    std::uint64_t m_ownSeq = 0;
    std::uint64_t m_publishSeq = 0;
    std::uint64_t m_overlapsDropped = 0;
    std::vector<std::uint64_t> m_frontier;                      // per origin region: applied 1..n
    std::map<std::pair<int, std::uint64_t>, Waiting> m_waiting; // (origin, from) ahead of the frontier
    std::vector<std::pair<std::uint64_t, RowDelta>> m_unreported;
    std::vector<std::uint64_t> m_changedAt;                     // per row: publish that last changed it
};

} // namespace synaptic::engine
