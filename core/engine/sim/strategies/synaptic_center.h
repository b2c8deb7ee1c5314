#pragma once

#include "core/engine/codec/delta_publisher.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_node.h"
#include "core/engine/synapse/lease.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <deque>
#include <limits>
#include <map>
#include <set>

namespace synaptic::engine {

// The synaptic center (issue 3 §4): grants and renews leases, merges the
// regions' shard deltas with the outer optimizer (DiLoCo Nesterov, or plain
// averaging), bumps the global version, sends the new global copy back, and
// checks consistency: every region's delta must be based on a global version
// the center issued, with the same checksum. Reports drift per shard and
// region. Keeps every region's owners as announced (the plan at first) and
// tells a joining edge its region's owners with its lease.
//
// Under knobs.hubMerges the merging moves to the shards' hubs (shard_hubs.h):
// an edge hosts this class in the Hub role for the shards it is hub of
// (its own durable state, StatePart::Hub of the edge's node, written at
// every merge as the center's is: a killed hub restarts from it; no
// leases: a region counts in a merge while the center's last pull says it
// hears the region, or while its deltas came within a lease's length), and the Center role
// keeps leases and owners and pulls every hub's merged copies every
// knobs.hubPullSeconds instead of merging: a HubPull naming the
// version and checksum it holds of each shard (and, in `owners`, the
// regions it hears), answered with a HubCopy of what changed (a coded
// delta from that copy, or the whole copy; the exact whole copy once a
// shard has settled, so the model the center serves ends exact under a
// lossy codec too), whose checksum the center checks before taking it. A
// hub's own consistency checks (regions' deltas not based on what it
// issued) stay in its consistencyMismatches(); the center's checks of the
// copies it pulled are its consistency events, one per pull round.
class SynapticCenter : public SimNode {
public:
    enum class Role { Center, Hub };
    explicit SynapticCenter(const NodeContext &ctx, Role role = Role::Center);

    void start(double now, Outbox &out) override;
    void onMessage(double now, Message &&m, Outbox &out) override;
    void onTimer(double now, int kind, std::uint64_t arg, Outbox &out) override;
    void onKilled(double now, Outbox &out) override;
    void revive(double now, bool fromOldState, Outbox &out) override;
    // What revive() does before start(), without the audit's Restore
    // record: a hub's host reports that as its own (SynapticEdge).
    void restoreAfterCrash(double now, bool fromOldState, Outbox &out);
    bool crashed() const { return m_crashed; }
    // When the state it last restored was current (0 before any restore).
    double writtenAt() const { return m_writtenAt; }
    bool evaluationModel(at::Tensor &values, at::Tensor &buffers) const override;

    at::Tensor globalValues() const;     // shard order
    std::uint64_t version(int shard) const { return m_shards[std::size_t(shard)].version; }
    bool idle() const;
    int shardsWithReports() const; // shards whose region reports wait for a merge (idle() waits for 0)
    bool finished() const override { return idle(); }
    // Under hub merges: when the center sent the newest pull round after
    // which it held every hub's exact copies (each answered with nothing
    // withheld and no coded delta, and each copy checked). Otherwise at
    // any time.
    double settledAt() const override {
        return pullsFromHubs() ? m_settledAt : std::numeric_limits<double>::infinity();
    }
    std::uint64_t consistencyMismatches() const { return m_mismatches; }
    Role role() const { return m_role; }
    // A hub: the shards it merges (others' deltas are not its to merge).
    const std::set<int> &hubShards() const { return m_hubShards; }
    // The checksum of the copy of `shard` this node holds (the hub's exact
    // one; the center's, which a lossy pull leaves coded until it settles).
    std::uint64_t checksum(int shard) const { return m_shards[std::size_t(shard)].checksums.front().second; }

private:
    enum Timer { kMergeDeadline = 1, kPull = 2 };
    static constexpr std::size_t kChecksumHistory = 16;
    // Merged deltas remembered per region and shard (a resend that overtook
    // a later delta is still recognised).
    static constexpr std::size_t kMergedHistory = 8;
    struct Report {
        int region;
        int node;
        ShardItem item;
    };
    // A region's delta the center merged: an owner resending it (no answer
    // came) is answered again, never merged twice.
    // The data's checksum tells a resend (the same delta, decoded the same
    // way) from a new delta that reuses a sequence on the same base (an
    // owner restarted from its older state file).
    struct MergedDelta {
        std::uint64_t sequence = 0;
        std::uint64_t baseVersion = 0;
        std::uint64_t baseChecksum = 0;
        std::uint64_t dataChecksum = 0;
        bool operator==(const MergedDelta &) const = default;
    };
    struct Shard {
        at::Tensor global;
        at::Tensor momentum;
        std::uint64_t version = 0;
        std::deque<std::pair<std::uint64_t, std::uint64_t>> checksums; // (version, checksum), recent first
        std::vector<Report> reports;
        // Lossy center codec (issue 14): per region, the global copy its
        // owner holds, which the next answer is a coded delta from (a hub:
        // one more, slot regionCount(), the copy the center pulled).
        std::vector<DeltaPublisher> regionCopy;
        std::vector<std::uint64_t> regionChecksum;
        std::vector<std::deque<MergedDelta>> merged; // per region, recent first
        // Per region: the answer last sent (memory only), sent again as it
        // was when its delta comes again: a lossy answer re-coded, or the
        // region's copy reset, would no longer match what the owner holds.
        std::vector<ShardItem> lastAnswer;
        bool deadlineArmed = false;
        std::uint64_t deadlineGeneration = 0;
        // A hub: when it last merged (memory only; never, for a restarted
        // hub: its shards count as settled whatever the settle time).
        double mergedAt = -std::numeric_limits<double>::infinity();
        // A new version and its checksum; the oldest past kChecksumHistory is forgotten.
        void remember(std::uint64_t v, std::uint64_t checksum) {
            checksums.emplace_front(v, checksum);
            while (checksums.size() > kChecksumHistory)
                checksums.pop_back();
        }
    };

    void mergeShards(double now, const std::vector<int> &shards, Outbox &out);
    ShardItem answerItem(int id, Shard &s, const Report &r);
    // A region's first report based on the initial values (version 0): its
    // copy starts there, so the first answer is coded too.
    void seedCopyFromInitial(int id, Shard &s, std::size_t region, const ShardItem &report);
    // One region copy (and its checksum) per region, for coded answers (and
    // a hub's for the center).
    void sizeRegionCopies(Shard &s) const;
    // The whole global copy of shard `id` for `region`, which the region's
    // later coded deltas then start from.
    ShardItem wholeAnswer(int id, Shard &s, std::size_t region, std::uint64_t sequence);
    // The audit record of one region's delta merged (AuditEvent::Merge):
    // the center_merges_once checker reads these, not answerResent's verdict.
    SimEvent mergeRecord(double now, int shard, const Report &r, std::uint64_t dataChecksum) const;
    void armDeadline(double now, int shard, Outbox &out);
    void onHeartbeat(double now, const Message &m, Outbox &out);
    // A resent delta this center merged already: its answer again (the
    // whole global copy, so it applies whatever the region holds).
    bool answerResent(int region, Shard &s, const ShardItem &item, Message &reply, bool &resynced);
    // Durable state (issue 15 §1): leases and epochs, owners, the global
    // shards with their optimizer state, versions, checksums and the
    // deltas merged; written at every merge, new epoch and owner change.
    // Reports waiting for a merge are not kept: their owners resend them.
    // A hub writes only the shards it is hub of (the others are its
    // untouched starting values), and its copies include the center's slot.
    void persist(Outbox &out);
    std::string encodeState() const;        // synaptic_center_state.cpp
    // Whether shard `id` is written in the state (a hub's: only its own).
    bool holdsInState(int id) const { return m_role == Role::Center || m_hubShards.count(id) > 0; }
    void decodeState(const std::string &bytes, const std::string &source);
    double m_writtenAt = 0;  // the newest state's time: leases valid then may have been renewed since
    // Regions with at least one edge whose lease is valid at `now` (the
    // hub role, which sees no leases: whose delta came within a lease's
    // length).
    std::set<int> heardRegions(double now) const;
    // The batch-norm statistics evaluation uses (evaluationModel).
    at::Tensor evaluationBuffers() const;
    // Hub merges (synaptic_center_pulls.cpp): the center asks every hub
    // for its shards; a hub answers what changed since the copy the center
    // holds (the center's copy is one more "region" of the hub's coded
    // answers, slot regionCount()); the center checks and takes it.
    bool pullsFromHubs() const { return m_role == Role::Center && m_ctx.config->knobs.hubMerges; }
    void sendPulls(double now, Outbox &out);
    void answerPull(double now, const Message &pull, Outbox &out);
    void takePulled(double now, Message &&answer, Outbox &out);
    // The pull round's checks as one consistency event (one center sync).
    void reportPullCheck(double now, Outbox &out);
    // Books a hub's answer to its round for settledAt().
    void noteSettling(const Message &answer, bool allChecked);

    const NodeContext &m_ctx;
    const Role m_role;
    std::vector<std::vector<int>> m_owners;      // [region][shard] -> owner edge, as announced
    std::map<int, at::Tensor> m_buffers;         // latest batch-norm statistics per owner node
    std::map<int, double> m_lastDeltaAt;         // per region: when its last delta arrived
    double m_lastSeen = 0;                       // latest message or timer (evaluation has no clock)
    LeaseRegistry m_leases;
    OuterOptimizer m_outer;
    std::vector<Shard> m_shards;
    std::uint64_t m_round = 0;
    std::uint64_t m_mismatches = 0;
    // The center's checks of hub copies in this pull round, reported as one
    // consistency check (one center sync) once every hub asked has answered,
    // or when the next round leaves (reportPullCheck).
    ConsistencyEvent m_pullCheck;
    std::set<int> m_pullAwaiting;  // the center: hubs asked in this round that have not answered
    std::uint64_t m_pullRound = 0;  // the center: the newest pull round (its pulls carry it, answers echo it)
    // The center: pull rounds still open for settledAt(), by round.
    struct OpenRound {
        double sentAt = 0;
        std::set<int> awaiting; // hubs that have not answered it
        bool exact = true;      // every answer so far brought the hub's exact copies
    };
    // How long a round stays open: kOpenRounds pull periods, at least
    // kOpenRoundSeconds (a slow answer still completes its round).
    static constexpr std::uint64_t kOpenRounds = 8;
    static constexpr double kOpenRoundSeconds = 10;
    std::map<std::uint64_t, OpenRound> m_openRounds;
    double m_settledAt = -std::numeric_limits<double>::infinity(); // settledAt()
    std::set<int> m_centerHeard;   // a hub: the regions the center's newest pull said it hears
    std::set<int> m_hubShards;     // a hub: hubShards()
    bool m_written = false;  // wrote durable state at least once
    bool m_crashed = false;  // killed with a store: memory is gone until revive
};

} // namespace synaptic::engine
