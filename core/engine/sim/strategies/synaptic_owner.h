#pragma once

#include "core/engine/codec/delta_publisher.h"
#include "core/engine/codec/error_feedback.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_node.h"
#include "core/engine/synapse/lease.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <map>
#include <set>

namespace synaptic::engine {

// The owner side of a synaptic edge (DESIGN.md §1 "owner"): for each shard it
// owns in its region it merges the region's window gradients, applies Adam
// with per-shard state at a rate scaled by the windows the merge holds,
// bumps the version and sends the new values to the region's edges still
// training; every N merges it sends the shard's delta to the center and
// folds the center's new global copy back in (sent to every edge, finished
// ones included). Moves a shard to another owner on
// command (fence, hand off values and optimizer state, forward late
// gradients; the new owner announces itself to its region and the center).
// Lives inside the edge node; engine thread only.
class SynapticOwner {
public:
    // `replica` is the hosting edge's own model: its batch-norm statistics
    // ride with the center deltas (the center evaluates with them).
    SynapticOwner(const NodeContext &ctx, const FlatModel *replica);

    // A Gradients message for shards this edge owns (or owned: forwarded).
    // `windowSeconds`: how long the hosting edge's aggregation window lasts.
    void onGradients(double now, Message &&m, bool ownLeaseValid, double windowSeconds, Outbox &out);
    void onMergeDeadline(double now, std::uint64_t round, bool ownLeaseValid, Outbox &out);
    void onCatchUpRequest(double now, const Message &m, Outbox &out);
    void onCenterValues(double now, Message &&m, Outbox &out);
    // Returns the shards this owner took over.
    std::vector<int> onHandoff(double now, Message &&m, Outbox &out);
    std::string moveShard(double now, int shard, int toEdge, Outbox &out);
    void observeLease(const Lease &lease, int edge) { m_gate.observe(edge, lease); }
    // The process died: buffered gradients are gone. Shard values, optimizer
    // state and the unanswered delta are on disk: the center's answer is
    // redelivered after the restart (the center channel is reliable).
    void onKilled(Outbox &out);

    bool idle() const;                 // nothing buffered, no sync in flight, nothing unsynced after finish
    bool finishing() const { return m_finishing; }
    bool owns(int shard) const { return m_shards.count(shard) > 0; }
    std::vector<int> ownedShards() const;
    const at::Tensor &values(int shard) const { return m_shards.at(shard).values; }
    std::uint64_t version(int shard) const { return m_shards.at(shard).version; }
    // What lossy center deltas of `shard` still owe (undefined: nothing), and
    // the copy of it the region's edges hold (undefined: whole values go next).
    const at::Tensor &centerResidual(int shard) const { return m_shards.at(shard).centerFeedback.residual(); }
    const at::Tensor &publishedValues(int shard) const { return m_shards.at(shard).published.published(); }
    static constexpr int kMergeDeadlineTimer = 10;

private:
    struct Pending {
        int edge;
        Lease lease;
        double sentAt;
        ShardItem item;
    };
    struct Store {
        at::Tensor values;            // authoritative copy of the shard in this region
        AdamState adam;
        std::uint64_t version = 0;
        at::Tensor base;              // the global copy the region last took from the center
        std::uint64_t baseVersion = 0;
        std::uint64_t baseChecksum = 0;
        at::Tensor sentValues;        // values when the pending delta left for the center
        int mergesSinceSync = 0;
        bool syncInFlight = false;
        std::uint64_t syncSequence = 0; // of the last delta sent; its answer must carry it
        std::vector<Pending> pending;
        ErrorFeedback centerFeedback; // what lossy center deltas left out (moves with the shard)
        DeltaPublisher published;     // the copy the region's edges hold (value deltas)
    };
    // The item that tells the region's edges shard `shard`'s new values:
    // a coded delta from the copy they hold, or the whole values.
    ShardItem valuesItem(int shard, Store &s);
    // Whole values for an edge that asked (catch-up): the copy every other
    // edge holds when value deltas are on.
    ShardItem wholeValuesItem(int shard, const Store &s) const;

    void merge(double now, Outbox &out);
    void mergeShard(double now, int shard, Store &s, std::vector<ShardItem> &updated, Outbox &out);
    // `updated` to the region's edges still training; `toFinished` (whole
    // copies: after a center sync) to those that finished, if given.
    void sendValues(const std::vector<ShardItem> &updated, Outbox &out,
                    const std::vector<ShardItem> *toFinished = nullptr);
    void maybeSync(double now, bool force, Outbox &out);
    void reportOwnerVersion(int shard, const Store &s, Outbox &out) const;
    const std::vector<int> &regionEdges() const { return m_ctx.shape->edgesOfRegion[std::size_t(m_region)]; }

    const NodeContext &m_ctx;
    const FlatModel *m_replica;
    int m_edge;
    int m_region;
    std::map<int, Store> m_shards;
    std::map<int, int> m_forwardTo;      // shard -> node it moved to
    std::vector<Pending> m_orphans;      // gradients that arrived before their shard's handoff
    std::vector<ShardItem> m_orphanAnswers; // center answers that arrived before their shard's handoff
    EpochGate m_gate;
    std::set<int> m_heardThisRound;      // edges whose window arrived since the last merge
    std::map<int, std::uint64_t> m_lastHeardRound;
    // Per edge: the newest window whose gradients arrived, and the newest
    // one merged into the values this owner sends. A Values message carries
    // the latter for its recipient in `round`, so an edge tells the answer
    // to its window from values an owner sends for another reason (a center
    // sync): only the answer lets it train on.
    std::map<int, std::uint64_t> m_arrivedWindow;
    std::map<int, std::uint64_t> m_mergedWindow;
    std::set<int> m_finishedEdges;
    std::uint64_t m_round = 0;           // merges done
    bool m_deadlineArmed = false;
    bool m_finishing = false;
};

} // namespace synaptic::engine
