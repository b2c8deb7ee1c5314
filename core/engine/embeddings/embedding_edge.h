#pragma once

#include "row_delta.h"

#include "core/engine/tasks/langid_model.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace synaptic::engine {

// An edge of the hot-update scenario: a language-ID model copy, a versioned
// view per shard over it (the embedding table's row ranges, and the
// classifier's rows), the gradients of its current window, and which
// publishes of each shard it has seen. Publishes are numbered per shard by
// its owner; one message may cover a range of them (an owner coalesces what
// queued behind a slow link). No I/O: the driver calls it. Engine thread.
class EmbeddingEdge {
public:
    EmbeddingEdge(const LangIdShape &shape, const RowShardMap &table, int classifierShard, int shardCount,
                  const at::Tensor &initialTable, const at::Tensor &initialClassifier);

    LangIdNetImpl &model() { return *m_model; }
    int shardCount() const { return int(m_views.size()); }
    int classifierShard() const { return m_classifierShard; }
    const RowShardMap &table() const { return m_table; }
    VersionedRows &view(int shard) { return *m_views[std::size_t(shard)]; }

    // Accumulates one batch's gradients into the window.
    void addBatch(const at::Tensor &rows, const at::Tensor &rowGrads, const at::Tensor &classifierGrad);
    struct ShardWindow {
        int shard;
        std::vector<std::int64_t> rows;
        at::Tensor grads;
    };
    // The window's mean gradient rows per shard touched; clears the window.
    std::vector<ShardWindow> takeWindow();

    // A publish covering numbers [from, to] of `shard` (0, 0: a part of a
    // backlog that claims none), sent when the owner's newest number was
    // `latest`; returns the rows taken.
    std::size_t receivePublish(int shard, std::uint64_t from, std::uint64_t to, std::uint64_t latest,
                               const RowDelta &values);
    // Publishes of `shard` this edge knows it has not got: numbers up to the
    // newest the owner told it of that no message covered (lost, on their
    // way, or queued behind a slow link).
    std::uint64_t missed(int shard) const;
    std::uint64_t contiguous(int shard) const { return m_seen[std::size_t(shard)].contiguous; }
    std::uint64_t newestSeen(int shard) const;
    // A catch-up asked at `now` (again, after `retryAfter` passed without an
    // answer: the wait doubles with every retry, so a slow link's large
    // answer is not asked for over and over), or answered.
    void askCatchUp(int shard, double now) {
        auto &seen = m_seen[std::size_t(shard)];
        seen.retries = seen.catchUpPending ? seen.retries + 1 : 0;
        seen.catchUpPending = true;
        seen.catchUpSince = now;
    }
    void catchUpAnswered(int shard) {
        m_seen[std::size_t(shard)].catchUpPending = false;
        m_seen[std::size_t(shard)].retries = 0;
    }
    bool catchUpDue(int shard, double now, double timeout) const {
        const auto &seen = m_seen[std::size_t(shard)];
        return !seen.catchUpPending || now - seen.catchUpSince >= timeout * double(1u << std::min(seen.retries, 6));
    }

    // Share of the embedding table's rows this edge holds.
    double heldShare() const;

private:
    void syncClassifier();

    struct Seen {
        std::uint64_t contiguous = 0;               // every publish 1..contiguous arrived
        std::map<std::uint64_t, std::uint64_t> ahead; // ranges [from, to] past a gap
        std::uint64_t latest = 0;                      // the owner's newest number it has heard of
        bool catchUpPending = false;
        double catchUpSince = 0;                       // when the pending catch-up was asked
        int retries = 0;
    };

    RowShardMap m_table;
    int m_classifierShard;
    LangIdNet m_model{nullptr};
    at::Tensor m_classifierRows; // [classes, dim + 1]: weight rows with their bias
    std::vector<std::unique_ptr<VersionedRows>> m_views; // by plan shard id
    std::vector<std::int64_t> m_windowRows;
    std::vector<at::Tensor> m_windowGrads;
    at::Tensor m_windowClassifier;
    int m_windowBatches = 0;
    std::vector<Seen> m_seen;
};

} // namespace synaptic::engine
