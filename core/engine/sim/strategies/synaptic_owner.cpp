#include "synaptic_owner.h"

#include "shard_hubs.h"

#include "core/engine/durable/state_codec.h"
#include "core/engine/durable/state_store.h"
#include "core/engine/synapse/flat_model.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace synaptic::engine {

namespace {
// An owner refuses window gradients computed more than this many versions
// behind the shard's current version: a long-partitioned edge catches up first.
// Local updates' moves too: a bound of 64 for them accepted more of a slow
// edge's moves and did not help (one seed; docs/BENCHMARKS.md, seventeenth pass).
constexpr std::uint64_t kMaxVersionsBehind = 16;
// An edge not heard for this many merges no longer holds up a merge.
constexpr std::uint64_t kInactiveRounds = 3;
// The most a merge's step may be scaled by the windows it holds.
constexpr double kMaxStepScale = 4.0;
// How long a restarted owner waits for its region's gradients before it
// resumes at the versions its state file gives.
constexpr double kRecoverySeconds = 2.0;
// Where a shard's count of windows since its center sync stops: it fits
// the int32 it travels in, and any sync cadence is reached long before.
constexpr std::int64_t kMaxWindowsSinceSync = std::int64_t(1) << 30;
} // namespace

SynapticOwner::SynapticOwner(const NodeContext &ctx, const FlatModel *hostModel, std::function<std::uint64_t()> hostSteps)
    : m_ctx(ctx), m_hostModel(hostModel), m_hostSteps(std::move(hostSteps)), m_edge(ctx.edge()), m_region(ctx.region()),
      m_gate(ctx.shape->edgeCount()) {
    const auto &plan = ctx.model->plan;
    std::int64_t offset = 0;
    for (const auto &shard : plan.shards) {
        const std::int64_t n = shard.parameters;
        if (ctx.owners.at(std::size_t(shard.id)) == m_edge) {
            Store s;
            s.values = ctx.model->initialValues.slice(0, offset, offset + n).clone();
            s.base = s.values.clone();
            s.baseChecksum = tensorChecksum(s.base);
            const auto i = std::size_t(shard.id);
            s.version = i < ctx.ownerVersions.size() ? ctx.ownerVersions[i] : 0;
            s.baseVersion = i < ctx.centerVersions.size() ? ctx.centerVersions[i] : 0;
            m_shards.emplace(shard.id, std::move(s));
        }
        offset += n;
    }
    for (int e : regionEdges())
        m_lastHeardRound[e] = 0;
    if (ctx.stateStore && ctx.stateStore->read(ctx.node))
        m_crashed = true; // a process started over its old state: start() reloads it
}

void SynapticOwner::writeInitialState(Outbox &out) {
    if (m_ctx.stateStore && !m_crashed && m_writtenVersion.empty())
        maybePersist(true, out); // the state a crash before the first merge returns to
}

std::vector<int> SynapticOwner::ownedShards() const {
    std::vector<int> out;
    for (const auto &[id, s] : m_shards)
        out.push_back(id);
    return out;
}

std::vector<std::pair<int, std::uint64_t>> SynapticOwner::heldContributions() const {
    std::vector<std::pair<int, std::uint64_t>> out;
    auto add = [&out](const Pending &p) {
        for (const auto id : p.item.contributionIds)
            out.emplace_back(p.item.shard, id);
    };
    for (const auto &[id, s] : m_shards)
        std::for_each(s.pending.begin(), s.pending.end(), add);
    std::for_each(m_orphans.begin(), m_orphans.end(), add);
    return out;
}

bool SynapticOwner::idle() const {
    for (const auto &[id, s] : m_shards)
        if (!s.pending.empty() || s.syncInFlight || (m_finishing && s.windowsSinceSync > 0))
            return false;
    return m_orphans.empty() && m_orphanAnswers.empty();
}

std::string SynapticOwner::whyNotIdle() const {
    int pending = 0, syncing = 0, unsynced = 0;
    for (const auto &[id, s] : m_shards) {
        pending += !s.pending.empty();
        syncing += s.syncInFlight;
        unsynced += m_finishing && s.windowsSinceSync > 0;
    }
    std::string out;
    auto add = [&out](int n, const char *what) {
        if (n > 0)
            out += (out.empty() ? "" : ", ") + std::to_string(n) + what;
    };
    add(pending, " shard(s) with gradients buffered");
    add(syncing, " shard(s) waiting for the center's answer to a sync");
    add(unsynced, " shard(s) with windows not synced yet");
    add(int(m_orphans.size() + m_orphanAnswers.size()), " orphaned message(s) held");
    return out;
}

void SynapticOwner::onKilled(Outbox &out) {
    if (m_ctx.stateStore) {
        // Merges since the last write die with the memory: their
        // contributions are reported lost, as is each merge.
        for (auto &[shard, ids] : m_appliedSinceWrite)
            out.report(LedgerReport{LedgerReport::Kind::RolledBack, shard, ids.size(), std::move(ids),
                                    "merge_not_persisted"});
        out.ledger(LedgerReport::Kind::MergesLost, m_appliedSinceWrite.size());
        m_appliedSinceWrite.clear();
        m_crashed = true;
    }
    auto lost = [&out](const Pending &p) {
        out.report(LedgerReport{LedgerReport::Kind::LostInCrash, p.item.shard, p.item.contributionIds.size(),
                                p.item.contributionIds, "owner_crashed"});
    };
    for (auto &[id, s] : m_shards) {
        for (const auto &p : s.pending)
            lost(p);
        s.pending.clear();
    }
    for (const auto &p : m_orphans)
        lost(p);
    m_orphans.clear();
    m_heardThisRound.clear();
    m_deadlineArmed = false;
    m_mergeMissedInLapse = false;
    // With a state store the memory is lost and a restart resets what the
    // edges hold (published), so whole values go next anyway; without one
    // the simulated owner keeps its shards and records, and this with them.
    if (m_ctx.stateStore)
        m_missedValues.clear();
    m_resendArmed = false; // timers die with the process
}

void SynapticOwner::onGradients(double now, Message &&m, bool ownLeaseValid, double windowSeconds, Outbox &out) {
    const int origin = m.origin;
    std::map<int, Message> forwards;
    for (auto &item : m.shards) {
        const int shard = item.shard;
        if (owns(shard)) {
            m_shards[shard].pending.push_back({origin, m.lease, m.writtenAt, std::move(item)});
        } else if (const auto fwd = m_forwardTo.find(shard); fwd != m_forwardTo.end()) {
            // Rerouted after a move: the new owner applies it, exactly once.
            auto &f = forwards[fwd->second];
            f.kind = MessageKind::Gradients;
            f.to = fwd->second;
            f.origin = origin;
            f.lease = m.lease;
            f.writtenAt = m.writtenAt;
            f.round = m.round;
            f.last = m.last;
            f.shards.push_back(std::move(item));
            out.ledger(LedgerReport::Kind::Forwarded, 1);
        } else {
            // A gradient for a shard whose handoff has not landed yet (a
            // retransmitted handoff overtaken by a later message): hold it.
            m_orphans.push_back({origin, m.lease, m.writtenAt, std::move(item)});
        }
    }
    for (auto &[node, f] : forwards)
        out.send(std::move(f));

    // A newer window, not its last, from an edge this owner counted out
    // (finished, or quiet for kInactiveRounds merges: as when the others'
    // last windows came as a burst of merges) means the region is not done
    // after all. Only this clears the flag, not a recount at each merge: an
    // owner that got the flag with a handoff may never have heard the
    // region's edges, and would drop the verdict its last delta depends on.
    const bool newerWindow = !m.last && m.round > m_arrivedWindow[origin];
    const auto lastHeard = m_lastHeardRound.find(origin);
    const bool countedOut = m_finishedEdges.count(origin) > 0 ||
                            (lastHeard != m_lastHeardRound.end() && lastHeard->second + kInactiveRounds <= m_round);
    if (newerWindow && countedOut)
        m_finishing = false;
    m_heardThisRound.insert(origin);
    m_lastHeardRound[origin] = m_round;
    if (m.last)
        m_finishedEdges.insert(origin);
    else if (newerWindow)
        m_finishedEdges.erase(origin); // trains again (a revived edge): values after every merge again
    m_arrivedWindow[origin] = std::max(m_arrivedWindow[origin], m.round);

    bool everyoneIn = true;
    for (const auto &[e, heard] : m_lastHeardRound) {
        const bool active = heard + kInactiveRounds > m_round && !(m_finishedEdges.count(e) && !m_heardThisRound.count(e));
        if (active && !m_heardThisRound.count(e))
            everyoneIn = false;
    }
    if (everyoneIn && ownLeaseValid)
        merge(now, out);
    else
        armMergeDeadline(now, windowSeconds, out);
}

void SynapticOwner::armMergeDeadline(double now, double windowSeconds, Outbox &out) {
    if (m_deadlineArmed)
        return;
    // In real time, processes sharing cores drift apart by more than a
    // step (a scheduler delay is tens of ms): wait longer for the rest
    // of the region, so merges stay whole as in the simulator's
    // lockstep (still well inside what an edge waits for the answer).
    const double wait = m_ctx.realTime ? 4 * windowSeconds + 0.3 : 0.5 * windowSeconds + 0.002;
    out.timer(now + wait, kMergeDeadlineTimer, m_round);
    m_deadlineArmed = true;
}

void SynapticOwner::onLeaseValid(double now, double windowSeconds, Outbox &out) {
    // Only after a deadline that merged nothing: every other wait has its
    // deadline armed already, so runs without a lapse are unchanged.
    if (!m_mergeMissedInLapse)
        return;
    m_mergeMissedInLapse = false;
    for (const auto &[id, s] : m_shards)
        if (!s.pending.empty()) {
            armMergeDeadline(now, windowSeconds, out);
            return;
        }
}

void SynapticOwner::onMergeDeadline(double now, std::uint64_t round, bool ownLeaseValid, Outbox &out) {
    if (round != m_round)
        return; // that round already merged
    m_deadlineArmed = false;
    if (ownLeaseValid)
        merge(now, out);
    else
        m_mergeMissedInLapse = true; // onLeaseValid arms another
}

void SynapticOwner::merge(double now, Outbox &out) {
    std::vector<ShardItem> updated;
    bool hadGradients = false;
    for (auto &[id, s] : m_shards) {
        if (s.pending.empty())
            continue;
        hadGradients = true;
        mergeShard(now, id, s, updated, out);
    }
    const auto contributors = m_heardThisRound;
    m_mergedWindow = m_arrivedWindow; // everything that arrived is in this merge
    ++m_round;
    m_heardThisRound.clear();
    m_deadlineArmed = false;
    m_mergeMissedInLapse = false;
    if (!updated.empty()) {
        sendValues(updated, out, nullptr, &contributors);
    } else if (hadGradients) {
        // Everything was rejected: still answer, or the contributors wait
        // for values that never come.
        for (int e : contributors) {
            Message v;
            v.kind = MessageKind::Values;
            v.to = ClusterShape::nodeOfEdge(e);
            v.round = m_mergedWindow[e];
            out.send(std::move(v));
        }
    }

    bool regionDone = true;
    for (const auto &[e, heard] : m_lastHeardRound)
        if (!m_finishedEdges.count(e) && heard + kInactiveRounds > m_round)
            regionDone = false;
    if (regionDone)
        m_finishing = true; // until an edge counted out sends a newer window (onGradients)
    maybeSync(now, m_finishing, out);
    maybePersist(false, out);
    if (m_recovering && hadGradients)
        endRecovery(now, out);
}

void SynapticOwner::mergeShard(double now, int shard, Store &s, std::vector<ShardItem> &updated, Outbox &out) {
    // Items from edges under local updates (ClusterConfig::localUpdatesAt)
    // carry the edges' moves; the others gradients. One merge may hold both.
    at::Tensor sum;   // gradients, each weighed by its windows
    at::Tensor moves; // moves, summed as they are
    double gradientWindows = 0;
    std::vector<std::uint64_t> ids;
    double windows = 0; // aggregation windows in this merge, over every accepted edge
    std::uint64_t newestSeen = 0; // the newest version an accepted gradient was computed on
    for (auto &p : s.pending) {
        // A contribution already applied (a duplicated or redelivered
        // message) is dropped: each window gradient counts once.
        if (!m_ctx.faults.breakDuplicateGuard && s.applied.containsAll(p.item.contributionIds)) {
            continue;
        }
        const bool tooOld = s.version > p.item.version + kMaxVersionsBehind;
        const auto verdict = tooOld || m_ctx.faults.breakEpochGate ? EpochGate::Verdict::Accepted
                                                                   : m_gate.check(p.edge, p.lease, p.sentAt);
        if (tooOld || verdict != EpochGate::Verdict::Accepted) {
            out.report(LedgerReport{LedgerReport::Kind::Rejected, shard, p.item.contributionIds.size(),
                                    p.item.contributionIds, tooOld ? "too_stale" : verdictName(verdict)});
            continue;
        }
        s.applied.insert(p.item.contributionIds);
        if (!p.lease.validAt(p.sentAt))
            out.ledger(LedgerReport::Kind::AppliedUnderExpiredLease, 1); // the gate must make this impossible
        // Each edge's mean weighs as many windows as the edge claims (a
        // shard held for a slow owner carries several; see SynapticEdge::
        // closeWindow for windows kept open while training ahead).
        // Capped: one edge's claim cannot outweigh the whole region by much.
        const double w = std::min(double(std::max<std::uint32_t>(1, p.item.windows)),
                                  kMaxStepScale * double(regionEdges().size()));
        // Staleness-aware (knobs.stalenessWeighting): a window whose oldest
        // step was computed k versions behind counts 1/k of its windows; 0
        // or 1 behind counts whole. Versions also move with center answers,
        // and jump after an owner's restart, so a window in flight across
        // either counts less than its merges alone would say.
        const double staleness = double(std::max<std::uint64_t>(1, s.version - std::min(s.version, p.item.version)));
        const double weight = m_ctx.config->knobs.stalenessWeighting ? w / staleness : w;
        // A local update's move holds all of its steps already: summed as it is.
        if (m_ctx.config->localUpdatesAt(p.edge)) {
            moves = moves.defined() ? moves.add_(p.item.data, 1.0) : p.item.data.mul(1.0);
        } else {
            sum = sum.defined() ? sum.add_(p.item.data, weight) : p.item.data.mul(weight);
            gradientWindows += weight;
        }
        windows += w;
        ids.insert(ids.end(), p.item.contributionIds.begin(), p.item.contributionIds.end());
        newestSeen = std::max(newestSeen, p.item.version);
    }
    s.pending.clear();
    if (!sum.defined() && !moves.defined())
        return;
    const double regionSize = double(std::max<std::size_t>(1, regionEdges().size()));
    if (moves.defined()) {
        // The region's model is the mean of its edges' replicas (FedAvg):
        // each edge's move counts 1/N, so a merge that holds one edge's
        // window moves the shard an Nth as far as a full region's would.
        // Beside gradients (one edge under local updates) the same: that
        // edge's share of the region's step is its move over N.
        s.values.add_(moves, 1.0 / regionSize);
    }
    if (sum.defined()) {
        sum.div_(gradientWindows);
        AdamOptions adam;
        // The linear scaling rule: the configured rate is for the whole
        // region's batch; a merge with fewer windows (a straggler's late one, a
        // region half cut off, the last edge still training) steps in
        // proportion. Adam's step does not shrink with a noisier mean, so
        // without this one edge's batch would move the shard as far as eight.
        // The other way too: a slow owner's merge of shards its region held
        // back for five windows steps five times as far, once (up to
        // kMaxStepScale times the rate, to keep Adam stable).
        const double share = gradientWindows / regionSize;
        // The schedule's point: the steps this owner's own edge has pushed, so
        // no message has to carry one. Its region's edges push in step with it
        // on the default; a straggler's shards follow the straggler's clock
        // (and a fast owner's those of a straggler reach the end a little
        // early), which the schedule's smooth cosine makes a small difference.
        adam.lr = m_ctx.learningRate(m_hostSteps ? m_hostSteps() : 0) * std::min(kMaxStepScale, share);
        adamStep(s.values, sum, s.adam, adam);
    }
    // Summing the merge's items (one pass each), then the add and the step.
    const double perParameter = double(ids.size()) + (moves.defined() ? kOuterFlopsPerParameter : 0.0) +
                                (sum.defined() ? kAdamFlopsPerParameter : 0.0);
    out.compute(m_ctx.computeSeconds(perParameter * double((sum.defined() ? sum : moves).numel())));
    // An owner restarted from an old state file may be behind versions its
    // edges already hold: its first merge goes past every one they computed
    // on by a reservation's width (the last few versions it issued before
    // the crash may never have reached them).
    if (m_recovering)
        s.version = std::max(s.version, newestSeen + std::uint64_t(std::max(1, m_ctx.config->knobs.durableEveryMerges)));
    s.version = std::max(s.version, newestSeen);
    ++s.version;
    if (m_ctx.stateStore)
        m_appliedSinceWrite.emplace_back(shard, ids);
    // What the next center sync waits for is training, not merges: a merge
    // of one straggler's window counts one edge window, not a whole
    // region's (counting merges, a region synced as often per lone window
    // as per full one). Saturated: the count keeps growing while a sync
    // waits for its answer.
    s.windowsSinceSync = int(std::min<std::int64_t>(std::int64_t(s.windowsSinceSync) + std::lround(windows),
                                                    kMaxWindowsSinceSync));
    (void)now;
    reportOwnerVersion(shard, s, out);
    out.report(LedgerReport{LedgerReport::Kind::Applied, shard, ids.size(), std::move(ids)});
    updated.push_back(valuesItem(shard, s));
}

ShardItem SynapticOwner::valuesItem(int shard, Store &s) {
    const auto &codecs = m_ctx.config->codecs;
    ShardItem item;
    item.shard = shard;
    item.version = s.version;
    const bool deltas = codecs.values.codec != Codec::Fp32 && codecs.valueDeltas;
    if (!deltas || s.published.empty()) {
        // Whole values: fp32 (a fp32 delta would be as large), value deltas
        // off, or no record of what the edges hold (the codec was just
        // switched on): this copy becomes the base for the next delta.
        if (codecs.values.codec == Codec::Fp32 || deltas)
            item.data = s.values.clone();
        else
            setCoded(item.data, item.coding, encode(s.values, codecs.values)); // lossy, nothing to correct it
        s.published = DeltaPublisher{};
        if (deltas)
            s.published.reset(s.values, s.version);
    } else {
        item.delta = true;
        item.deltaFrom = s.published.version();
        setCoded(item.data, item.coding, s.published.publish(s.values, s.version, codecs.values));
    }
    return item;
}

ShardItem SynapticOwner::wholeValuesItem(int shard, const Store &s) const {
    ShardItem item;
    item.shard = shard;
    const bool deltas = m_ctx.config->codecs.values.codec != Codec::Fp32 && m_ctx.config->codecs.valueDeltas;
    if (deltas && !s.published.empty()) {
        item.version = s.published.version();
        item.data = s.published.published().clone();
    } else {
        item.version = s.version;
        item.data = s.values.clone();
    }
    return item;
}

void SynapticOwner::reportOwnerVersion(int shard, const Store &s, Outbox &out) const {
    RouteReport r{RouteReport::Kind::OwnerVersion, shard, m_region, m_edge, s.version, 0};
    r.checksum = tensorChecksum(s.values); // two owners of one version must agree (split-brain audit)
    out.report(r);
}

void SynapticOwner::sendValues(const std::vector<ShardItem> &updated, Outbox &out,
                               const std::vector<ShardItem> *toFinished, const std::set<int> *contributors) {
    if (updated.empty())
        return;
    const bool onContribution = m_ctx.config->knobs.valuesOnContribution;
    for (int e : regionEdges()) {
        // An edge past its last window trains no more: it takes the
        // region's values at center syncs only (enough to serve), not after
        // every merge of the edges still training (a straggler's tail
        // would otherwise send the whole region a copy per window).
        const bool finished = m_finishedEdges.count(e) > 0;
        if (finished && !toFinished)
            continue;
        // An edge this merge did not hear from (one that trains ahead
        // behind a slow line, or was late) gets no copy it has not asked
        // for: on a slow line those copies queue, and each arrives staler
        // than the last. It gets the whole values with its next answer.
        if (onContribution && contributors && !finished && !contributors->count(e)) {
            m_missedValues.insert(e);
            continue;
        }
        Message v;
        v.kind = MessageKind::Values;
        v.to = ClusterShape::nodeOfEdge(e);
        v.round = m_mergedWindow[e];
        // Tensors are shared, never written after sending.
        if (finished)
            v.shards = *toFinished;
        else if (m_missedValues.erase(e) > 0)
            v.shards = wholeValuesOfOwnedShards();
        else
            v.shards = updated;
        out.send(std::move(v));
    }
}

std::vector<ShardItem> SynapticOwner::wholeValuesOfOwnedShards() const {
    std::vector<ShardItem> items;
    for (const auto &[id, s] : m_shards)
        items.push_back(wholeValuesItem(id, s));
    return items;
}

ShardItem SynapticOwner::centerDeltaItem(int shard, const Store &s) {
    ShardItem item;
    item.shard = shard;
    item.version = s.baseVersion;
    item.checksum = s.baseChecksum;
    item.sequence = s.syncSequence;
    return item;
}

void SynapticOwner::sendCenterDelta(std::vector<ShardItem> items, Outbox &out) const {
    // Each shard's delta goes where the regions' copies of it merge: the
    // center, or the shard's hub (knobs.hubMerges).
    std::map<int, std::vector<ShardItem>> byNode;
    for (auto &item : items)
        byNode[mergeNodeOfShard(m_ctx, item.shard)].push_back(std::move(item));
    bool withStatistics = m_hostModel != nullptr;
    for (auto &[node, shards] : byNode) {
        Message d;
        d.kind = MessageKind::CenterDelta;
        d.to = node;
        d.round = m_round;
        d.shards = std::move(shards);
        // The center evaluates the global model with the batch-norm
        // statistics the regions' edges report here (no gradient carries
        // them), at the center class's width (statisticsCodec). Once per
        // sync: to hubs, with the first delta (the hubs that get them pass
        // their mean on with their answers to the center's pulls).
        if (withStatistics)
            setBatchNormStats(d, m_hostModel->buffers(), m_ctx.config->codecs.center);
        withStatistics = false;
        out.send(std::move(d));
    }
}

void SynapticOwner::maybeSync(double now, bool force, Outbox &out) {
    std::vector<ShardItem> items;
    // center_sync_windows counts the region's windows: each of its edges'.
    const std::int64_t every = std::min<std::int64_t>(
        std::int64_t(m_ctx.config->knobs.centerSyncWindows) * std::int64_t(std::max<std::size_t>(1, regionEdges().size())),
        kMaxWindowsSinceSync);
    for (auto &[id, s] : m_shards) {
        if (s.syncInFlight || s.windowsSinceSync == 0 || (!force && s.windowsSinceSync < every))
            continue;
        ++s.syncSequence;
        ShardItem item = centerDeltaItem(id, s);
        Coded coded = s.centerFeedback.compress(s.values - s.base, m_ctx.config->codecs.center);
        s.sentDelta = decode(coded);
        setCoded(item.data, item.coding, std::move(coded));
        s.sentValues = s.values.clone();
        s.syncInFlight = true;
        s.syncSentAt = now;
        s.resends = 0;
        s.windowsSinceSync = 0;
        items.push_back(std::move(item));
    }
    if (!items.empty()) {
        sendCenterDelta(std::move(items), out);
        maybePersist(true, out); // the delta in flight and its sequence must survive a crash
        armResend(now, out);
    }
}

double SynapticOwner::resendDue(const Store &s) {
    // Backs off (4, 8, 16, 32 s): a center that is down or far away is not
    // flooded with copies of what its link is still carrying.
    return s.syncSentAt + kSyncResendSeconds * double(1 << std::min(s.resends, 3));
}

void SynapticOwner::armResend(double now, Outbox &out) {
    if (m_resendArmed)
        return;
    std::optional<double> earliest;
    for (const auto &[id, s] : m_shards)
        if (s.syncInFlight && s.sentDelta.defined())
            earliest = std::min(earliest.value_or(resendDue(s)), resendDue(s));
    if (!earliest)
        return;
    m_resendArmed = true;
    out.timer(std::max(now, *earliest), kSyncResendTimer);
}

void SynapticOwner::onSyncResendTimer(double now, Outbox &out) {
    m_resendArmed = false;
    resendUnanswered(now, false, out);
}

void SynapticOwner::resendUnanswered(double now, bool all, Outbox &out) {
    std::vector<ShardItem> items;
    for (auto &[id, s] : m_shards) {
        if (!s.syncInFlight || !s.sentDelta.defined() || (!all && resendDue(s) > now + 1e-9))
            continue;
        // The same delta under the same sequence and base: the center
        // merges it if the first copy never arrived, and only answers it
        // again if it did. Sent as fp32: the codec's error is already in
        // the residual, so the center must get exactly what it decoded.
        ShardItem item = centerDeltaItem(id, s);
        item.data = s.sentDelta;
        s.syncSentAt = now;
        ++s.resends;
        items.push_back(std::move(item));
    }
    if (!items.empty()) {
        out.ledger(LedgerReport::Kind::CenterResent, items.size());
        sendCenterDelta(std::move(items), out);
    }
    armResend(now, out);
}

void SynapticOwner::onCenterValues(double now, Message &&m, Outbox &out) {
    if (m_recovering) {
        m_deferred.push_back(std::move(m)); // it would issue a version
        return;
    }
    std::vector<ShardItem> updated;
    std::vector<ShardItem> whole;
    std::map<int, Message> forwards;
    bool answered = false; // a sync in flight ended (folded in or not): durable at once
    for (auto &item : m.shards) {
        if (!owns(item.shard)) {
            if (const auto fwd = m_forwardTo.find(item.shard); fwd != m_forwardTo.end()) {
                auto &f = forwards[fwd->second];
                f.kind = MessageKind::CenterValues;
                f.to = fwd->second;
                f.round = m.round;
                f.shards.push_back(std::move(item));
            } else {
                m_orphanAnswers.push_back(std::move(item)); // overtook its shard's handoff
            }
            continue;
        }
        Store &s = m_shards[item.shard];
        if (!s.syncInFlight || item.sequence != s.syncSequence)
            continue; // not the answer to the delta in flight: an old duplicate
        s.syncInFlight = false;
        s.sentDelta = at::Tensor();
        answered = true;
        // A delta from the center applies to the global copy it was taken
        // from; anything else leaves the region's copy as it is and the
        // next delta's check at the center sends a whole copy.
        if (item.delta && item.deltaFrom != s.baseVersion)
            continue;
        const at::Tensor global = item.delta ? s.base + item.data : item.data;
        if (tensorChecksum(global) != item.checksum)
            continue; // corrupted in transit: keep the region's copy, resend at the next sync
        // Keep what the region learned while the delta was in flight.
        s.values = global + (s.values - s.sentValues);
        s.base = global;
        s.baseVersion = item.version;
        s.baseChecksum = item.checksum;
        s.sentValues = at::Tensor();
        ++s.version;
        reportOwnerVersion(item.shard, s, out);
        updated.push_back(valuesItem(item.shard, s));
        // Edges that finished skipped the merges' value deltas: a delta
        // would not apply to the copy they hold, so they get the whole copy
        // (built only when there is such an edge; at fp32 the item just
        // built is that copy already).
        if (!m_finishedEdges.empty())
            whole.push_back(m_ctx.config->codecs.values.codec == Codec::Fp32 ? updated.back()
                                                                            : wholeValuesItem(item.shard, s));
    }
    for (auto &[node, f] : forwards)
        out.send(std::move(f));
    sendValues(updated, out, &whole);
    if (m_finishing)
        maybeSync(now, true, out);
    maybePersist(answered, out); // the sync ended (and the center's copy folded in)
}

void SynapticOwner::onCatchUpRequest(double now, const Message &m, Outbox &out) {
    if (m_recovering) {
        // Answered once this owner knows which version is safe to name;
        // one per asker (an edge asks again every second meanwhile: each
        // answer would be another whole copy of the shards).
        const auto same = std::find_if(m_deferred.begin(), m_deferred.end(), [&](const Message &d) {
            return d.kind == MessageKind::CatchUpRequest && d.from == m.from;
        });
        if (same != m_deferred.end()) {
            // Keep the newest stamp, the one the edge waits for: not an
            // older ask arriving late, nor a missed delta's unstamped
            // request (the catch-up's whole values repair that too).
            if (m.writtenAt >= same->writtenAt)
                *same = m;
        } else
            m_deferred.push_back(m);
        return;
    }
    m_gate.observe(m.origin, m.lease);
    m_missedValues.erase(m.origin); // this answer is the whole copy it was owed
    Message v;
    v.kind = MessageKind::Values;
    v.to = m.from;
    // As in every Values message: the asker's newest window these values
    // include (not this owner's merge count), so the edge never takes a
    // catch-up answer for the answer to a later window.
    v.round = m_mergedWindow[m.origin];
    v.writtenAt = m.writtenAt; // the asker's stamp: this is its answer, not values already in flight
    for (const auto &[id, s] : m_shards)
        v.shards.push_back(wholeValuesItem(id, s));
    out.send(std::move(v)); // sent even when empty: it answers the request
}

std::string SynapticOwner::moveShard(double now, int shard, int toEdge, Outbox &out) {
    const auto &shape = *m_ctx.shape;
    if (m_recovering)
        return "edge " + shape.edgeName(m_edge) + " restarted and is still recovering its shards";
    if (!owns(shard))
        return "edge " + shape.edgeName(m_edge) + " does not own shard " + std::to_string(shard) +
               " (a move may already be in flight)";
    if (toEdge == m_edge)
        return "edge " + shape.edgeName(toEdge) + " already owns shard " + std::to_string(shard);
    if (toEdge < 0 || toEdge >= shape.edgeCount() || shape.regionOfEdge[std::size_t(toEdge)] != m_region)
        return "shards move only between edges of the same region";
    // Fence: apply what is buffered, so the new owner starts from a version
    // that includes every gradient that reached this owner.
    Store &s = m_shards[shard];
    std::vector<ShardItem> updated;
    if (!s.pending.empty())
        mergeShard(now, shard, s, updated, out);
    sendValues(updated, out);

    Message h;
    h.kind = MessageKind::Handoff;
    h.to = ClusterShape::nodeOfEdge(toEdge);
    ShardItem item;
    item.shard = shard;
    item.version = s.version;
    item.checksum = s.baseChecksum;
    item.data = s.values;
    item.optimizer = s.adam;
    item.base = s.base;
    item.baseVersion = s.baseVersion;
    item.sentValues = s.sentValues;
    item.windowsSinceSync = s.windowsSinceSync;
    item.syncInFlight = s.syncInFlight;
    item.syncSequence = s.syncSequence;
    item.sentDelta = s.sentDelta;
    item.finishing = m_finishing;
    item.residual = s.centerFeedback.residual();
    if (!s.published.empty()) {
        item.published = s.published.published();
        item.deltaFrom = s.published.version();
    }
    item.contributionIds = s.applied.ids(); // the new owner drops their duplicates too
    h.shards.push_back(std::move(item));
    out.send(std::move(h));
    if (m_ctx.faults.breakMoveFence)
        return ""; // test-only: keeps merging the shard beside its new owner (split brain)
    m_shards.erase(shard);
    m_writtenVersion.erase(shard);
    m_forwardTo[shard] = ClusterShape::nodeOfEdge(toEdge);
    maybePersist(true, out); // a restart must not own the shard again
    return "";
}

std::vector<int> SynapticOwner::onHandoff(double now, Message &&m, Outbox &out) {
    // Which edges the old owner left without a merge's values is not
    // handed over: with knobs.valuesOnContribution every region edge gets
    // whole copies next, never a delta it may not be able to apply.
    if (m_ctx.config->knobs.valuesOnContribution)
        m_missedValues.insert(regionEdges().begin(), regionEdges().end());
    std::vector<int> taken;
    Message announce;
    announce.kind = MessageKind::OwnerAnnounce;
    announce.origin = m_edge;
    for (auto &item : m.shards) {
        if (item.shard < 0 || std::size_t(item.shard) >= m_ctx.owners.size())
            continue; // no such shard: nothing to take over
        Store s;
        s.values = item.data;
        s.adam = item.optimizer;
        s.version = item.version;
        s.base = item.base;
        s.baseVersion = item.baseVersion;
        s.baseChecksum = item.checksum;
        s.sentValues = item.sentValues;
        s.windowsSinceSync = item.windowsSinceSync;
        s.syncInFlight = item.syncInFlight;
        s.syncSequence = item.syncSequence;
        s.sentDelta = item.sentDelta;
        s.syncSentAt = now; // the new owner resends it if no answer comes
        s.centerFeedback.setResidual(item.residual);
        s.applied.insert(item.contributionIds);
        if (item.published.defined())
            s.published.reset(item.published, item.deltaFrom);
        const int shard = item.shard;
        if (item.finishing)
            m_finishing = true; // the region is done: this shard still owes the center its last delta
        m_forwardTo.erase(shard); // it may come back
        m_shards[shard] = std::move(s);
        taken.push_back(shard);
        out.report(RouteReport{RouteReport::Kind::Owner, shard, m_region, m_edge, 0, 0});
        ShardItem a;
        a.shard = shard;
        a.version = m_shards[shard].version;
        announce.shards.push_back(std::move(a));
        // Gradients that overtook the handoff.
        std::vector<Pending> keep;
        for (auto &p : m_orphans)
            (p.item.shard == shard ? m_shards[shard].pending : keep).push_back(std::move(p));
        m_orphans.swap(keep);
    }
    // Center answers that overtook the handoff, now that their shard is here.
    std::vector<ShardItem> answers;
    std::vector<ShardItem> keepAnswers;
    for (auto &a : m_orphanAnswers)
        (owns(a.shard) ? answers : keepAnswers).push_back(std::move(a));
    m_orphanAnswers.swap(keepAnswers);
    if (!answers.empty()) {
        Message replay;
        replay.kind = MessageKind::CenterValues;
        replay.shards = std::move(answers);
        onCenterValues(now, std::move(replay), out);
    }
    if (m_finishing)
        maybeSync(now, true, out);
    // The new owner tells its region and the center: edges send here from
    // now on (the old owner forwards what was already on its way).
    if (!announce.shards.empty()) {
        for (int e : regionEdges()) {
            if (e == m_edge)
                continue;
            Message a = announce;
            a.to = ClusterShape::nodeOfEdge(e);
            out.send(std::move(a));
        }
        announce.to = kCenterNode;
        out.send(std::move(announce));
    }
    maybePersist(!taken.empty(), out); // the shard is durable here before anyone relies on it
    armResend(now, out);
    return taken;
}

} // namespace synaptic::engine

namespace synaptic::engine {

namespace {

void writeMap(StateWriter &w, const std::map<int, std::uint64_t> &m) {
    w.u64(m.size());
    for (const auto &[k, v] : m) {
        w.i64(k);
        w.u64(v);
    }
}

std::map<int, std::uint64_t> readMap(StateReader &r) {
    std::map<int, std::uint64_t> m;
    for (auto n = r.u64(); n > 0; --n) {
        const int k = int(r.i64());
        m[k] = r.u64();
    }
    return m;
}

} // namespace

void SynapticOwner::maybePersist(bool force, Outbox &out) {
    if (!m_ctx.stateStore)
        return;
    const auto every = std::uint64_t(std::max(1, m_ctx.config->knobs.durableEveryMerges));
    bool due = force;
    for (const auto &[id, s] : m_shards)
        if (s.version >= m_writtenVersion[id] + every)
            due = true;
    if (!due)
        return;
    out.persist(encodeState());
    for (const auto &[id, s] : m_shards)
        m_writtenVersion[id] = s.version;
    m_appliedSinceWrite.clear();
}

std::string SynapticOwner::encodeState() const {
    StateWriter w;
    w.i64(m_edge);
    w.u64(m_round);
    w.flag(m_finishing);
    w.u64(m_finishedEdges.size());
    for (int e : m_finishedEdges)
        w.i64(e);
    writeMap(w, m_lastHeardRound);
    writeMap(w, m_arrivedWindow);
    writeMap(w, m_mergedWindow);
    std::map<int, std::uint64_t> forwards;
    for (const auto &[shard, node] : m_forwardTo)
        forwards[shard] = std::uint64_t(node);
    writeMap(w, forwards);
    w.ids(m_gate.latestEpochs());
    w.u64(m_shards.size());
    for (const auto &[id, s] : m_shards) {
        w.i64(id);
        w.tensor(s.values);
        w.tensor(s.adam.m);
        w.tensor(s.adam.v);
        w.i64(s.adam.step);
        w.u64(s.version);
        w.tensor(s.base);
        w.u64(s.baseVersion);
        w.u64(s.baseChecksum);
        w.tensor(s.sentValues);
        w.tensor(s.sentDelta);
        w.i64(s.windowsSinceSync);
        w.flag(s.syncInFlight);
        w.u64(s.syncSequence);
        w.tensor(s.centerFeedback.residual());
        w.ids(s.applied.ids());
    }
    return w.finish();
}

void SynapticOwner::decodeState(const std::string &bytes, const std::string &source) {
    StateReader r(bytes, source);
    if (r.i64() != m_edge)
        throw StateFileError(source + ": written by another edge's owner");
    const std::string &device = m_ctx.model->device;
    const auto round = r.u64();
    const bool finishing = r.flag();
    std::set<int> finished;
    for (auto n = r.u64(); n > 0; --n)
        finished.insert(int(r.i64()));
    auto lastHeard = readMap(r);
    auto arrived = readMap(r);
    auto merged = readMap(r);
    std::map<int, int> forwardTo;
    for (const auto &[shard, node] : readMap(r))
        forwardTo[shard] = int(node);
    auto epochs = r.ids();
    if (epochs.size() != m_gate.latestEpochs().size())
        throw StateFileError(source + ": lease epochs for " + std::to_string(epochs.size()) + " edges, the cluster has " +
                             std::to_string(m_gate.latestEpochs().size()));
    std::map<int, Store> shards;
    for (auto n = r.u64(); n > 0; --n) {
        const int id = int(r.i64());
        if (id < 0 || std::size_t(id) >= m_ctx.model->plan.shards.size())
            throw StateFileError(source + ": shard " + std::to_string(id) + " is not in this model's plan");
        Store s;
        s.values = r.tensor(device);
        s.adam.m = r.tensor(device);
        s.adam.v = r.tensor(device);
        s.adam.step = r.i64();
        s.version = r.u64();
        s.base = r.tensor(device);
        s.baseVersion = r.u64();
        s.baseChecksum = r.u64();
        s.sentValues = r.tensor(device);
        s.sentDelta = r.tensor(device);
        const auto windowsSinceSync = r.i64();
        if (windowsSinceSync < 0 || windowsSinceSync > kMaxWindowsSinceSync)
            throw StateFileError(source + ": shard " + std::to_string(id) + " counts " +
                                 std::to_string(windowsSinceSync) + " windows since its center sync");
        s.windowsSinceSync = int(windowsSinceSync);
        s.syncInFlight = r.flag();
        if (s.syncInFlight && !s.sentDelta.defined())
            throw StateFileError(source + ": shard " + std::to_string(id) +
                                 " has a delta in flight to the center but not the delta");
        s.syncSequence = r.u64();
        if (auto residual = r.tensor(device); residual.defined())
            s.centerFeedback.setResidual(std::move(residual));
        s.applied.insert(r.ids());
        const auto expected = m_ctx.model->plan.shards[std::size_t(id)].parameters;
        const std::pair<const char *, const at::Tensor *> parts[] = {
            {"values", &s.values}, {"Adam first moment", &s.adam.m}, {"Adam second moment", &s.adam.v},
            {"center base", &s.base}, {"values sent to the center", &s.sentValues},
            {"delta in flight to the center", &s.sentDelta},
            {"error-feedback residual", &s.centerFeedback.residual()}};
        for (const auto &[what, t] : parts)
            if ((t->defined() || t == &s.values) && (!t->defined() || t->numel() != expected))
                throw StateFileError(source + ": shard " + std::to_string(id) + "'s " + what + " holds " +
                                     std::to_string(t->defined() ? t->numel() : 0) + " values, the plan says " +
                                     std::to_string(expected));
        shards.emplace(id, std::move(s));
    }
    r.expectEnd();
    // Only a whole, checked file replaces the state.
    m_round = round;
    m_finishing = finishing;
    m_finishedEdges = std::move(finished);
    m_lastHeardRound = std::move(lastHeard);
    m_arrivedWindow = std::move(arrived);
    m_mergedWindow = std::move(merged);
    m_forwardTo = std::move(forwardTo);
    m_gate.restoreLatestEpochs(std::move(epochs));
    m_shards = std::move(shards);
}

void SynapticOwner::restoreAfterCrash(double now, Outbox &out, bool previousGeneration) {
    m_crashed = false;
    if (!m_ctx.stateStore)
        return;
    const std::string where = m_ctx.stateStore->describe(m_ctx.node);
    const auto newest = m_ctx.stateStore->read(m_ctx.node);
    if (!newest)
        throw StateFileError(where + ": no durable state to restart from");
    decodeState(*newest, where);
    const auto older = previousGeneration ? m_ctx.stateStore->readPrevious(m_ctx.node) : std::nullopt;
    if (older) {
        // An old backup: what the newest file held past it is lost too.
        std::map<int, std::pair<std::uint64_t, std::vector<std::uint64_t>>> newer; // shard -> (version, applied)
        for (const auto &[id, s] : m_shards)
            newer[id] = {s.version, s.applied.ids()};
        decodeState(*older, where + ".prev");
        std::uint64_t merges = 0;
        for (const auto &[id, s] : m_shards) {
            const auto n = newer.find(id);
            if (n == newer.end())
                continue;
            const auto keptIds = s.applied.ids();
            const std::set<std::uint64_t> kept(keptIds.begin(), keptIds.end());
            std::vector<std::uint64_t> undone;
            for (auto contribution : n->second.second)
                if (!kept.count(contribution))
                    undone.push_back(contribution);
            merges += n->second.first > s.version ? n->second.first - s.version : 0;
            if (!undone.empty())
                out.report(LedgerReport{LedgerReport::Kind::RolledBack, id, undone.size(), std::move(undone),
                                        "restored_old_state"});
        }
        out.ledger(LedgerReport::Kind::MergesLost, merges);
    }
    // Memory is gone: nothing buffered, nothing in flight known, no record
    // of the copy the edges hold (whole values go next).
    m_orphans.clear();
    m_orphanAnswers.clear();
    m_heardThisRound.clear();
    m_deadlineArmed = false;
    m_mergeMissedInLapse = false;
    m_appliedSinceWrite.clear();
    const auto every = std::uint64_t(std::max(1, m_ctx.config->knobs.durableEveryMerges));
    for (auto &[id, s] : m_shards) {
        s.published = DeltaPublisher{};
        if (!m_ctx.faults.breakRestoreVersionJump)
            s.version += every; // past anything the lost memory issued
    }
    m_writtenVersion.clear();
    maybePersist(true, out); // the jump itself is durable before any version past it is issued
    m_recovering = !m_shards.empty() && !m_ctx.faults.breakRestoreVersionJump;
    m_deferred.clear();
    if (m_ctx.faults.breakRestoreVersionJump) // test-only: names the file's versions at once
        for (const auto &[id, s] : m_shards)
            reportOwnerVersion(id, s, out);
    if (m_recovering)
        out.timer(now + kRecoverySeconds, kRecoveryTimer);
    // The answer to a delta in flight may have come while this node was
    // down: ask again now (the center never merges one delta twice).
    m_resendArmed = false;
    resendUnanswered(now, true, out);
}

void SynapticOwner::onRecoveryDeadline(double now, Outbox &out) {
    if (m_recovering)
        endRecovery(now, out);
}

void SynapticOwner::endRecovery(double now, Outbox &out) {
    m_recovering = false;
    // Every shard's version is safe to name now (a merged one reports the
    // same version and values again: harmless).
    for (const auto &[id, s] : m_shards)
        reportOwnerVersion(id, s, out);
    auto deferred = std::move(m_deferred);
    m_deferred.clear();
    for (auto &m : deferred) {
        if (m.kind == MessageKind::CatchUpRequest)
            onCatchUpRequest(now, m, out);
        else
            onCenterValues(now, std::move(m), out);
    }
}

} // namespace synaptic::engine
