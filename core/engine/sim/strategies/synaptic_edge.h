#pragma once

#include "local_updates.h"
#include "synaptic_center.h"
#include "synaptic_owner.h"

#include "core/engine/codec/error_feedback.h"
#include "core/engine/sim/replica.h"
#include "core/engine/synapse/gradient_cache.h"
#include "core/engine/synapse/lease.h"

#include <map>
#include <memory>
#include <set>

namespace synaptic::engine {

// A synaptic edge (issue 3 §3, §5): trains on its partition with its cached
// replica, pushes every step's gradient into its local cache stamped with
// the shard versions it was computed on, and at the end of each aggregation
// window sends the merged gradients to each shard's owner in the region
// (behind a slow link it may train ahead and send several windows as one:
// knobs.trainAheadWindows). Under local updates (knobs.localUpdates, or
// the edge's own local_updates key) it takes its own
// Adam step after each training step and pushes the replica's move
// instead of the gradient (LocalUpdates).
// Applies owners' new values at step boundaries. Holds a lease from the
// center: read-only (no training, no pushes) when it lapses; on a new lease
// it catches up with every owner before training again. Also hosts the
// owner role for the shards the plan gives it. Knows its region's owners
// from its context at start, from the center's answer to its join, and
// from the announcements of new owners after a move. Under knobs.hubMerges
// it also hosts the hub of the shards the plan makes it hub of
// (shard_hubs.h): their regions' deltas and the center's pulls go there.
class SynapticEdge : public SimNode {
public:
    explicit SynapticEdge(const NodeContext &ctx);

    void start(double now, Outbox &out) override;
    void revive(double now, bool fromOldState, Outbox &out) override;
    void onMessage(double now, Message &&m, Outbox &out) override;
    void onTimer(double now, int kind, std::uint64_t arg, Outbox &out) override;
    void onKilled(double now, Outbox &out) override;
    std::string onCommand(double now, const SimCommand &cmd, Outbox &out) override;
    void onLeave(double now, const std::vector<bool> &edgeUp, Outbox &out) override;

    bool done() const { return m_done; }
    std::vector<std::pair<int, std::uint64_t>> heldContributions() const override { return m_owner.heldContributions(); }
    FlatModel *servingModel() override { return &m_replica->model(); }
    // Done training, and the owner role has merged and synced everything.
    bool finished() const override {
        return m_done && m_owner.idle() && (m_owner.ownedShards().empty() || m_owner.finishing()) &&
               (!m_hub || m_hub->idle());
    }
    Replica &replica() { return *m_replica; }
    SynapticOwner &owner() { return m_owner; }
    // The hub this edge hosts (knobs.hubMerges), or null.
    const SynapticCenter *hub() const { return m_hub.get(); }
    EdgeLeaseState::Mode mode() const { return m_lease.mode(); }
    std::uint64_t gradientsSent() const { return m_gradientMessagesSent; }
    std::uint64_t stepsPushed() const { return m_stepsPushed; }

private:
    enum Timer { kStepDone = 1, kHeartbeat = 2, kLeaseExpiry = 3, kValuesTimeout = 4, kCatchUpTimeout = 5 };

    void startStepIfAllowed(double now, Outbox &out);
    void finishStep(double now, Outbox &out);
    void closeWindow(double now, bool last, Outbox &out);
    // Once the owners answered the last window (or timed out): sends the
    // windows the edge kept open while it trained ahead, if there are any,
    // as its last window when its step budget is used.
    void closeWindowIfDue(double now, Outbox &out);
    // Whether the edge may train a step while its owners' answer to the
    // last window is in flight (knobs.trainAheadWindows).
    bool mayTrainAhead() const;
    // Whether `values` answer this epoch's catch-up request (not values
    // the owner sent earlier that arrive after the request went out).
    bool answersCatchUp(const Message &values) const;
    // A request for an owner node's whole values: stamped with a lease
    // catch-up's ask, or 0 after a missed delta or for a shard not held.
    Message catchUpRequest(int node, double stamp) const;
    // The open window has steps and has reached its end (steps or ms).
    bool windowOver(double now) const;
    // Drops what the cache holds, kept-open windows included, unsent.
    void dropOpenWindow();
    // Test-only (Faults::breakDropKeptWindows): kept-open windows are kept
    // where they would be dropped.
    bool keepsWindowsAheadByFault() const;
    void applyValues(double now, const Message &m, Outbox &out);
    // Asks owner node `node` for whole values of its shards, at most once per kCatchUpSeconds.
    void askForWholeValues(double now, int node, Outbox &out);
    void onLease(double now, const Message &grant, Outbox &out);
    void setMode(double now, EdgeLeaseState::Mode before, Outbox &out);
    void sendHeartbeat(double now, bool join, Outbox &out);
    // Owner pace (see m_answerSeconds): time an owner's answer to a window,
    // the region's (lower) median answer time, whether an owner is far
    // slower, and which shards' gradients wait for a slow owner's answer.
    void noteAnswer(double now, const Message &values);
    double medianAnswerSeconds() const;
    bool slowOwner(int node, double median) const;
    std::vector<bool> heldShards(double now, bool last) const;
    // Seconds one training step takes: the compute model's, or in real time
    // what the replica measured.
    double stepSeconds() const;
    // The clock the lease is measured on. An edge measures its lease as a
    // duration on its monotonic clock (`now`: the simulator's, or a live
    // process's steady clock) from its heartbeat's send time, so a wall
    // clock that is off, or is stepped while a lease runs, cannot stretch
    // it. With breakLeaseClock (test-only) it reads the center's expiry
    // timestamp on its wall clock instead, which a clock-skew fault sets
    // behind: it then trusts a lapsed lease, and the owners' epoch gate,
    // fed the true send time, is what stops its writes.
    double leaseClock(double now) const {
        return m_ctx.faults.breakLeaseClock ? now - m_ctx.faults.leaseClockLagSeconds : now;
    }
    double leaseClockLag() const { return m_ctx.faults.breakLeaseClock ? m_ctx.faults.leaseClockLagSeconds : 0; }
    // Values that include this edge's last window (Message::round).
    bool answersWindow(const Message &values) const { return values.round >= m_window; }
    int ownerNode(int shard) const { return ClusterShape::nodeOfEdge(m_owners[std::size_t(shard)]); }
    std::set<int> ownerNodes() const;
    // Whether the replica holds values from `node` for every shard it owns:
    // a catch-up that times out gives up only on owners whose shards it holds.
    bool holdsValuesOf(int node) const;
    bool holdsEveryShard() const;
    // On a restart after a crash (with durable state: the memory is lost):
    // the replica's values and the cache's versions are no one's current.
    // Its audit record (Restore) names when the hub it hosts wrote the
    // state it restarted from (0: it hosts none).
    void forgetValues(double now, double hubWrittenAt, Outbox &out);
    // Forgets them and reloads the owner's state file, and the hub's
    // (revive, or a live process started over its file).
    void restartFromState(double now, bool fromOldState, Outbox &out);
    // The hub's inputs (synaptic_edge_hub.cpp): its timers are this node's
    // from kHubTimerBase on; what it sends and reports leaves with the edge's.
    static constexpr int kHubTimerBase = 100;
    static std::unique_ptr<SynapticCenter> makeHub(const NodeContext &ctx, NodeContext &hubContext);
    bool forHub(const Message &m) const;
    // Killed with a store (or started over state files): a role must reload its state.
    bool crashed() const { return m_owner.crashed() || (m_hub && m_hub->crashed()); }
    void runHub(const std::function<void(SynapticCenter &, Outbox &)> &input, Outbox &out);

    const NodeContext &m_ctx;
    int m_edge;
    int m_region;
    std::vector<int> m_owners;              // owner edge of every shard in this region, as this edge knows it
    std::unique_ptr<Replica> m_replica;
    GradientCache m_cache;
    EdgeLeaseState m_lease;  // the lease as this edge's clock measures it (what it acts on)
    Lease m_granted;         // the lease as the center granted it (what messages carry)
    double m_heartbeatSentAt = 0; // the last heartbeat, by this edge's clock
    bool m_renewingEarly = false;  // the last heartbeat renewed a short lease early
    SynapticOwner m_owner;
    // The hub role's context: a copy of the edge's (the hub's faults are
    // refreshed from it on every input).
    NodeContext m_hubContext;
    std::unique_ptr<SynapticCenter> m_hub;
    std::vector<Message> m_pendingValues;   // applied at the next step boundary
    std::set<int> m_awaitingCatchUp;        // owner nodes that still have to answer
    // Per shard: whether the replica holds values an owner sent, or the
    // starting values every owner starts from too (a first start). A
    // restart loses them: the replica's values are older than the owners'
    // (cached version 0), and a catch-up asks until it holds every shard.
    // A shard not held is never pushed (finishStep).
    std::vector<bool> m_holdsValues;
    double m_catchUpGiveUpAt = 0; // when a catch-up stops asking for shards it holds no values of
    // When (by this edge's lease clock) it asked for this epoch's catch-up:
    // the owners echo it, which tells their answer from values they sent
    // before they heard of the new epoch and that are still in flight.
    double m_catchUpAskedAt = 0;
    std::uint64_t m_catchUpAsks = 0;        // keys the catch-up timeout to its ask
    std::set<int> m_awaitingOwners;         // owners that have not answered the last window yet
    std::set<int> m_unresponsiveOwners;     // timed out; not waited for until they answer again
    std::map<int, double> m_catchUpAsked;   // owners asked for whole values (a missed delta, a shard not held), and when
    std::map<int, ErrorFeedback> m_gradientFeedback; // per shard: what lossy gradient codecs left out
    const bool m_localUpdates; // ClusterConfig::localUpdatesAt: this edge sends moves, not gradients
    LocalUpdates m_local; // under local updates: the edge's own optimizer and its unsent moves
    // How long each owner (node) takes to answer a window, smoothed, and
    // when the recent windows closed: an owner far slower than the rest of
    // the region (a slow last mile) is not waited for; its values are
    // applied when they come, a few versions late (bounded staleness).
    std::map<int, double> m_answerSeconds;
    std::map<std::uint64_t, double> m_windowClosedAt;
    std::map<int, std::uint64_t> m_lastTimedWindow; // per owner node: the newest window its answer timed
    // Per owner node: the newest window sent to it that it has not answered.
    // A slow owner gets one window at a time; its shards' gradients keep
    // accumulating in the cache meanwhile, so its link never queues up.
    std::map<int, std::uint64_t> m_unanswered;

    bool m_stepRunning = false;
    std::uint64_t m_stepEpoch = 0;          // lease epoch the running step started under
    bool m_done = false;
    bool m_left = false;                    // left the cluster: no more heartbeats (a finished edge keeps them to serve)
    int m_windowSteps = 0;
    // Windows that ended while the owners' answer to the last one was still
    // in flight: the edge trained on and they stay open, one window to send.
    int m_windowsAhead = 0;
    double m_windowStart = 0;               // virtual time the open window's first step started
    std::uint64_t m_window = 0;
    std::uint64_t m_gradientMessagesSent = 0;
    std::uint64_t m_stepsPushed = 0;
};

} // namespace synaptic::engine
