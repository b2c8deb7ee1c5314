#pragma once

#include "core/engine/codec/delta_publisher.h"
#include "core/engine/codec/error_feedback.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_node.h"
#include "core/engine/synapse/applied_ids.h"
#include "core/engine/synapse/lease.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <functional>
#include <map>
#include <set>

namespace synaptic::engine {

// The owner side of a synaptic edge (DESIGN.md §1 "owner"): for each shard it
// owns in its region it merges the region's window gradients, applies Adam
// with per-shard state at a rate scaled by the windows the merge holds,
// bumps the version and sends the new values to the region's edges still
// training; once its region has merged N windows per edge it sends the
// shard's delta to the center (under knobs.hubMerges: to the shard's hub,
// shard_hubs.h) and
// folds the new global copy it answers with back in (sent to every edge,
// finished ones included). Moves a shard to another owner on
// command (fence, hand off values and optimizer state, forward late
// gradients; the new owner announces itself to its region and the center).
// Lives inside the edge node; engine thread only.
class SynapticOwner {
public:
    // `hostModel` is the hosting edge's own model: its batch-norm statistics
    // ride with the center deltas (the center evaluates with them).
    // `hostSteps` tells how many steps the hosting edge has pushed: it
    // places merges on the learning-rate schedule. Tests that drive an
    // owner alone may give neither (no statistics; the schedule's start).
    SynapticOwner(const NodeContext &ctx, const FlatModel *hostModel,
                  std::function<std::uint64_t()> hostSteps = {});
    // `hostSteps` may capture its edge: the owner lives and dies inside it.
    SynapticOwner(const SynapticOwner &) = delete;
    SynapticOwner &operator=(const SynapticOwner &) = delete;

    // A Gradients message for shards this edge owns (or owned: forwarded).
    // `windowSeconds`: how long the hosting edge's aggregation window lasts.
    void onGradients(double now, Message &&m, bool ownLeaseValid, double windowSeconds, Outbox &out);
    void onMergeDeadline(double now, std::uint64_t round, bool ownLeaseValid, Outbox &out);
    // The hosting edge's lease is valid again: gradients a deadline left
    // unmerged while it had lapsed get a new deadline. Without it they
    // wait for the next gradients to arrive, which never come once the
    // region's edges are done (the run then never finishes).
    void onLeaseValid(double now, double windowSeconds, Outbox &out);
    void onCatchUpRequest(double now, const Message &m, Outbox &out);
    void onCenterValues(double now, Message &&m, Outbox &out);
    // Returns the shards this owner took over.
    std::vector<int> onHandoff(double now, Message &&m, Outbox &out);
    std::string moveShard(double now, int shard, int toEdge, Outbox &out);
    void observeLease(const Lease &lease, int edge) { m_gate.observe(edge, lease); }
    // The process died: its memory is gone. Buffered gradients are reported
    // lost, and so is every contribution merged since the last durable
    // write (those merges are lost with the memory). With no state store
    // (a driver that gave none) the memory survives, as before issue 15.
    void onKilled(Outbox &out);
    // After a crash (or, live, a process started over an existing state
    // file): reload the last durable state. Each shard resumes at its
    // written version plus durable_every_merges, past every version the
    // lost memory could have issued (writes come at least that often); the
    // region's edges take whole values from it. A file may also be older
    // than the newest (an old backup: `previousGeneration`, a fault the
    // matrix injects), so the owner recovers before it issues any version:
    // its first merge goes past every version the gradients it merges were
    // computed on (the region's edges hold its newest values), and until
    // then catch-up requests and center answers wait. No gradients within
    // kRecoverySeconds: it resumes at the restored versions.
    void restoreAfterCrash(double now, Outbox &out, bool previousGeneration = false);
    bool crashed() const { return m_crashed; }
    // A first start with a store and nothing written yet: writes the state
    // a crash before the first merge returns to.
    void writeInitialState(Outbox &out);
    // A clean stop writes the state now, whatever K says: nothing merged
    // since the last write is lost (issue 15 §1).
    void persistOnStop(Outbox &out) { maybePersist(true, out); }

    // Gradients buffered for a merge or waiting for their shard's handoff.
    std::vector<std::pair<int, std::uint64_t>> heldContributions() const; // (shard, id)
    bool idle() const;                 // nothing buffered, no sync in flight, nothing unsynced after finish
    std::string whyNotIdle() const;    // what idle() waits for, in words; empty when idle
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
    static constexpr int kRecoveryTimer = 11;
    static constexpr int kSyncResendTimer = 12;
    // A center delta unanswered this long is sent again (the center answers
    // a copy it merged already without merging it twice): the owners' link
    // to the center is made reliable here, so a lost delta, a lost answer
    // or a center restart never stalls a shard's syncs. Twice the center's
    // merge deadline, so a delta waiting for the other regions is not resent.
    static constexpr double kSyncResendSeconds = 4.0;
    void onSyncResendTimer(double now, Outbox &out);
    // No gradients came to end the recovery after a restart: resume at the
    // restored versions.
    void onRecoveryDeadline(double now, Outbox &out);
    bool recovering() const { return m_recovering; }

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
        // Edge windows merged since the last center sync: a merge of the
        // whole region's windows counts each of them, a straggler's lone
        // window one (maybeSync).
        int windowsSinceSync = 0;
        bool syncInFlight = false;
        std::uint64_t syncSequence = 0; // of the last delta sent; its answer must carry it
        at::Tensor sentDelta;         // that delta as the center decodes it (what a resend carries)
        double syncSentAt = 0;        // when it was last sent (memory only)
        int resends = 0;              // times it was sent again: each waits twice as long (memory only)
        std::vector<Pending> pending;
        ErrorFeedback centerFeedback; // what lossy center deltas left out (moves with the shard)
        DeltaPublisher published;     // the copy the region's edges hold (value deltas)
        AppliedIds applied;           // contributions already merged (duplicates are dropped)
    };
    // The item that tells the region's edges shard `shard`'s new values:
    // a coded delta from the copy they hold, or the whole values.
    ShardItem valuesItem(int shard, Store &s);
    // Whole values for an edge that asked (catch-up): the copy every other
    // edge holds when value deltas are on.
    ShardItem wholeValuesItem(int shard, const Store &s) const;

    void merge(double now, Outbox &out);
    void armMergeDeadline(double now, double windowSeconds, Outbox &out);
    void mergeShard(double now, int shard, Store &s, std::vector<ShardItem> &updated, Outbox &out);
    // `updated` to the region's edges still training; `toFinished` (whole
    // copies: after a center sync) to those that finished, if given. With
    // knobs.valuesOnContribution and a merge's `contributors`, only they
    // get it; the others are owed a whole copy (m_missedValues).
    void sendValues(const std::vector<ShardItem> &updated, Outbox &out,
                    const std::vector<ShardItem> *toFinished = nullptr,
                    const std::set<int> *contributors = nullptr);
    // Whole values of every shard this owner holds (an edge that missed merges).
    std::vector<ShardItem> wholeValuesOfOwnedShards() const;
    void maybeSync(double now, bool force, Outbox &out);
    // A center delta's item for the sync in flight (base and sequence; the
    // caller adds the data), and the message that carries such items.
    static ShardItem centerDeltaItem(int shard, const Store &s);
    void sendCenterDelta(std::vector<ShardItem> items, Outbox &out) const;
    // Sends again every delta in flight whose wait is over (`all`: every
    // one), and arms the resend timer for those still in flight.
    void resendUnanswered(double now, bool all, Outbox &out);
    void armResend(double now, Outbox &out);
    static double resendDue(const Store &s);
    void reportOwnerVersion(int shard, const Store &s, Outbox &out) const;
    // Durable state (issue 15 §1): written when a shard's version is
    // durable_every_merges past its last write, or when `force` (a center
    // sync left or came back, a handoff, the region finished).
    void maybePersist(bool force, Outbox &out);
    std::string encodeState() const;
    void decodeState(const std::string &bytes, const std::string &source);
    const std::vector<int> &regionEdges() const { return m_ctx.shape->edgesOfRegion[std::size_t(m_region)]; }

    const NodeContext &m_ctx;
    const FlatModel *m_hostModel;
    std::function<std::uint64_t()> m_hostSteps;
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
    // Edges that missed a merge's values (knobs.valuesOnContribution): the
    // next values they get are whole copies, as a delta would not apply.
    std::set<int> m_missedValues;
    std::uint64_t m_round = 0;           // merges done
    // Durable state bookkeeping (memory only).
    std::map<int, std::uint64_t> m_writtenVersion; // per shard: its version in the newest write
    std::vector<std::pair<int, std::vector<std::uint64_t>>> m_appliedSinceWrite; // (shard, ids) per merge
    bool m_crashed = false;
    // After a restart, until the first merge (or the recovery deadline):
    // catch-up requests and center answers wait here.
    bool m_recovering = false;
    std::vector<Message> m_deferred;
    void endRecovery(double now, Outbox &out);
    bool m_deadlineArmed = false;
    bool m_mergeMissedInLapse = false; // a merge deadline passed while the hosting edge's lease had lapsed
    bool m_resendArmed = false;          // a kSyncResendTimer is pending
    // Every edge of the region finished or went quiet (or a handoff came
    // from an owner that saw so): each merge and center answer then syncs
    // what is left, so the center gets the end state. Cleared when an edge
    // counted out sends a newer window that is not its last.
    bool m_finishing = false;
};

} // namespace synaptic::engine
