#pragma once

#include "held_rows.h"
#include "row_delta.h"

#include "core/engine/tasks/langid_model.h"
#include "core/engine/tasks/langid_training.h"

#include <cstdint>
#include <map>
#include <vector>

namespace synaptic::engine {

// An edge of the hot-update scenario: the embedding rows it holds (HeldRows:
// what its data touched and what arrived by hot update, not the whole
// table), the classifier whole, the gradients of its current window, and
// which publishes of each shard it has seen. It computes the language-ID
// model (LangIdNet's forward: the mean of a text's n-gram rows, then the
// classifier) on the rows a batch needs, gathered into a compact table.
// Publishes are numbered per shard by its owner; one message may cover a
// range of them (an owner coalesces what queued behind a slow link). No I/O:
// the driver calls it. Engine thread.
class EmbeddingEdge {
public:
    // `checkpoint` [buckets, dim]: the table every edge starts from, shared
    // and never written; `initialClassifier` [classes, dim + 1] is copied.
    EmbeddingEdge(const LangIdShape &shape, const RowShardMap &table, int classifierShard, int shardCount,
                  const at::Tensor &checkpoint, const at::Tensor &initialClassifier);

    const LangIdShape &shape() const { return m_shape; }
    int shardCount() const { return int(m_seen.size()); }
    int classifierShard() const { return m_classifierShard; }
    const RowShardMap &table() const { return m_table; }
    const HeldRows &held() const { return m_rows; }
    // The version this edge holds of `row` of `shard` (a table row, or a
    // classifier row for the classifier shard).
    std::uint64_t version(int shard, std::int64_t row) const {
        return shard == m_classifierShard ? m_classifier.version(row) : m_rows.version(row);
    }

    // One batch's loss gradients (cross-entropy) on what this edge holds;
    // the batch's rows become held. Nothing changes but that.
    LangIdGradients gradients(const TextBatch &batch);
    // Class scores of a batch [texts, classes], without holding its rows.
    at::Tensor logits(const TextBatch &batch);

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

    // Share of the embedding table's rows this edge holds, in all and of
    // one table shard (0 for the classifier's id: see version()).
    double heldShare() const;
    double heldShare(int shard) const;

private:
    // The batch's unique rows, their values [k, dim] and the batch's indices
    // renumbered into them.
    struct Compact {
        at::Tensor rows;
        at::Tensor values;
        at::Tensor indices;
    };
    Compact compact(const TextBatch &batch, bool hold);
    // Class scores of the batch from its compact table and the classifier's weight and bias.
    static at::Tensor forward(const Compact &c, const TextBatch &batch, const at::Tensor &weight,
                              const at::Tensor &bias);

    struct Seen {
        std::uint64_t contiguous = 0;               // every publish 1..contiguous arrived
        std::map<std::uint64_t, std::uint64_t> ahead; // ranges [from, to] past a gap
        std::uint64_t latest = 0;                      // the owner's newest number it has heard of
        bool catchUpPending = false;
        double catchUpSince = 0;                       // when the pending catch-up was asked
        int retries = 0;
    };

    LangIdShape m_shape;
    RowShardMap m_table;
    int m_classifierShard;
    HeldRows m_rows;             // after m_table: it keeps a reference to it
    at::Tensor m_classifierRows; // [classes, dim + 1]: weight rows with their bias
    VersionedRows m_classifier;  // over m_classifierRows, held whole
    std::vector<std::int64_t> m_windowRows;
    std::vector<at::Tensor> m_windowGrads;
    at::Tensor m_windowClassifier;
    int m_windowBatches = 0;
    std::vector<Seen> m_seen;
};

} // namespace synaptic::engine
