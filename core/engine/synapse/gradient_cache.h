#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// A shard's gradients merged over one aggregation window, ready for its owner.
struct MergedGradient {
    int shard = 0;
    at::Tensor mean;                 // flat, the mean of the accepted pushes
    int contributions = 0;
    std::uint64_t baseVersion = 0;   // oldest version any contribution was computed on
    // The weight in aggregation windows the owner gives the mean: 1, or more
    // when the shard was held back (flushExcept) while its owner was slow
    // (an edge that trained ahead sends several windows' steps as 1). The
    // owner weighs and scales its step by it (linear scaling rule); not
    // from an edge under local updates (ClusterConfig::localUpdatesAt),
    // whose pushes are moves, summed whole.
    int windows = 1;
};

// An edge's local gradient cache (DESIGN.md §1 push_gradient): gradients for
// a shard accumulate here, each stamped with the shard version it was
// computed against, until the aggregation window closes and flush() hands the
// merged result to the owner. Bad input is refused and counted, never merged:
// a wrong size, any NaN/Inf, a version from the future, or one staler than
// `maxStaleness` behind the edge's cached version. Engine thread only.
class GradientCache {
public:
    enum class PushResult { Accepted, WrongShape, NonFinite, FutureVersion, Stale, UnknownShard };

    GradientCache(std::vector<std::int64_t> shardSizes, std::uint64_t maxStaleness = 4);

    PushResult pushGradient(int shard, const at::Tensor &gradient, std::uint64_t version);
    // The edge's cache now holds `version` of the shard (owner update applied).
    // Throws std::logic_error when `version` is older than the cached one,
    // unless a test breaks the edges' version guard (allowBackwards).
    void setCachedVersion(int shard, std::uint64_t version, bool allowBackwards = false);
    std::uint64_t cachedVersion(int shard) const;

    // Closes the window: one merged gradient per shard that received any,
    // in shard order; the cache is empty afterwards.
    std::vector<MergedGradient> flush();
    // The same for every shard but those marked in `hold` (by shard id),
    // which keep accumulating into the next window: flow control towards
    // an owner that has not answered the last window yet.
    std::vector<MergedGradient> flushExcept(const std::vector<bool> &hold);

    std::uint64_t accepted() const { return m_accepted; }
    std::uint64_t rejected() const { return m_rejected; }
    bool empty() const;

private:
    struct Slot {
        at::Tensor sum;
        int contributions = 0;
        int windowsHeld = 0; // windows closed while this slot was held back
        std::uint64_t baseVersion = 0;
        std::uint64_t cachedVersion = 0;
    };
    std::vector<std::int64_t> m_sizes;
    std::vector<Slot> m_slots;
    std::uint64_t m_maxStaleness;
    std::uint64_t m_accepted = 0;
    std::uint64_t m_rejected = 0;
};

} // namespace synaptic::engine
