#include "synaptic_owner.h"

#include "core/engine/synapse/flat_model.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace synaptic::engine {

namespace {
// An owner refuses window gradients computed this many versions or more
// behind the shard's current version: a long-partitioned edge catches up first.
constexpr std::uint64_t kMaxVersionsBehind = 16;
// An edge not heard for this many merges no longer holds up a merge.
constexpr std::uint64_t kInactiveRounds = 3;
// The most a merge's step may be scaled by the windows it holds.
constexpr double kMaxStepScale = 4.0;
} // namespace

SynapticOwner::SynapticOwner(const NodeContext &ctx, const FlatModel *replica)
    : m_ctx(ctx), m_replica(replica), m_edge(ctx.edge()), m_region(ctx.region()), m_gate(ctx.shape->edgeCount()) {
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
}

std::vector<int> SynapticOwner::ownedShards() const {
    std::vector<int> out;
    for (const auto &[id, s] : m_shards)
        out.push_back(id);
    return out;
}

bool SynapticOwner::idle() const {
    for (const auto &[id, s] : m_shards)
        if (!s.pending.empty() || s.syncInFlight || (m_finishing && s.mergesSinceSync > 0))
            return false;
    return m_orphans.empty() && m_orphanAnswers.empty();
}

void SynapticOwner::onKilled(Outbox &out) {
    for (auto &[id, s] : m_shards) {
        for (const auto &p : s.pending)
            out.ledger(LedgerReport::Kind::LostInCrash, p.item.contributionIds.size());
        s.pending.clear();
    }
    m_orphans.clear();
    m_heardThisRound.clear();
    m_deadlineArmed = false;
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

    m_heardThisRound.insert(origin);
    m_lastHeardRound[origin] = m_round;
    if (m.last)
        m_finishedEdges.insert(origin);
    else if (m.round > m_arrivedWindow[origin])
        m_finishedEdges.erase(origin); // trains again (a revived edge): values after every merge again
    m_arrivedWindow[origin] = std::max(m_arrivedWindow[origin], m.round);

    bool everyoneIn = true;
    for (const auto &[e, heard] : m_lastHeardRound) {
        const bool active = heard + kInactiveRounds > m_round && !(m_finishedEdges.count(e) && !m_heardThisRound.count(e));
        if (active && !m_heardThisRound.count(e))
            everyoneIn = false;
    }
    if (everyoneIn && ownLeaseValid) {
        merge(now, out);
    } else if (!m_deadlineArmed) {
        // In real time, processes sharing cores drift apart by more than a
        // step (a scheduler delay is tens of ms): wait longer for the rest
        // of the region, so merges stay whole as in the simulator's
        // lockstep (still well inside what an edge waits for the answer).
        const double wait = m_ctx.realTime ? 4 * windowSeconds + 0.3 : 0.5 * windowSeconds + 0.002;
        out.timer(now + wait, kMergeDeadlineTimer, m_round);
        m_deadlineArmed = true;
    }
}

void SynapticOwner::onMergeDeadline(double now, std::uint64_t round, bool ownLeaseValid, Outbox &out) {
    if (round != m_round)
        return; // that round already merged
    m_deadlineArmed = false;
    if (ownLeaseValid)
        merge(now, out);
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
    if (!updated.empty()) {
        sendValues(updated, out);
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
        m_finishing = true;
    maybeSync(now, m_finishing, out);
}

void SynapticOwner::mergeShard(double now, int shard, Store &s, std::vector<ShardItem> &updated, Outbox &out) {
    at::Tensor sum;
    std::vector<std::uint64_t> ids;
    double windows = 0; // aggregation windows in this merge, over every accepted edge
    for (auto &p : s.pending) {
        const bool tooOld = s.version > p.item.version + kMaxVersionsBehind;
        const auto verdict = tooOld || m_ctx.faults.breakEpochGate ? EpochGate::Verdict::Accepted
                                                                   : m_gate.check(p.edge, p.lease, p.sentAt);
        if (tooOld || verdict != EpochGate::Verdict::Accepted) {
            out.ledger(LedgerReport::Kind::Rejected, p.item.contributionIds.size());
            continue;
        }
        if (!p.lease.validAt(p.sentAt))
            out.ledger(LedgerReport::Kind::AppliedUnderExpiredLease, 1); // the gate must make this impossible
        // Each edge's mean weighs as many windows as it spans (a shard held
        // for a slow owner carries several).
        // Capped: one edge's claim cannot outweigh the whole region by much.
        const double w = std::min(double(std::max<std::uint32_t>(1, p.item.windows)),
                                  kMaxStepScale * double(regionEdges().size()));
        sum = sum.defined() ? sum.add_(p.item.data, w) : p.item.data.mul(w);
        windows += w;
        ids.insert(ids.end(), p.item.contributionIds.begin(), p.item.contributionIds.end());
    }
    s.pending.clear();
    if (!sum.defined())
        return;
    sum.div_(windows);
    AdamOptions adam;
    // The linear scaling rule: the configured rate is for the whole
    // region's batch; a merge with fewer windows (a straggler's late one, a
    // region half cut off, the last edge still training) steps in
    // proportion. Adam's step does not shrink with a noisier mean, so
    // without this one edge's batch would move the shard as far as eight.
    // The other way too: a slow owner's merge of shards its region held
    // back for five windows steps five times as far, once (up to
    // kMaxStepScale times the rate, to keep Adam stable).
    const double share = windows / double(std::max<std::size_t>(1, regionEdges().size()));
    adam.lr = m_ctx.config->learningRate * std::min(kMaxStepScale, share);
    adamStep(s.values, sum, s.adam, adam);
    out.compute(m_ctx.computeSeconds((double(ids.size()) + kAdamFlopsPerParameter) * double(sum.numel())));
    ++s.version;
    ++s.mergesSinceSync;
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
    out.report(RouteReport{RouteReport::Kind::OwnerVersion, shard, m_region, m_edge, s.version, 0});
}

void SynapticOwner::sendValues(const std::vector<ShardItem> &updated, Outbox &out,
                               const std::vector<ShardItem> *toFinished) {
    if (updated.empty())
        return;
    for (int e : regionEdges()) {
        // An edge past its last window trains no more: it takes the
        // region's values at center syncs only (enough to serve), not after
        // every merge of the edges still training (a straggler's tail
        // would otherwise send the whole region a copy per window).
        const bool finished = m_finishedEdges.count(e) > 0;
        if (finished && !toFinished)
            continue;
        Message v;
        v.kind = MessageKind::Values;
        v.to = ClusterShape::nodeOfEdge(e);
        v.round = m_mergedWindow[e];
        v.shards = finished ? *toFinished : updated; // tensors are shared, never written after sending
        out.send(std::move(v));
    }
}

void SynapticOwner::maybeSync(double now, bool force, Outbox &out) {
    (void)now;
    Message d;
    d.kind = MessageKind::CenterDelta;
    d.to = kCenterNode;
    d.round = m_round;
    const int every = m_ctx.config->knobs.centerSyncWindows;
    for (auto &[id, s] : m_shards) {
        if (s.syncInFlight || s.mergesSinceSync == 0 || (!force && s.mergesSinceSync < every))
            continue;
        ShardItem item;
        item.shard = id;
        item.version = s.baseVersion;
        item.checksum = s.baseChecksum;
        setCoded(item.data, item.coding, s.centerFeedback.compress(s.values - s.base, m_ctx.config->codecs.center));
        item.sequence = ++s.syncSequence;
        s.sentValues = s.values.clone();
        s.syncInFlight = true;
        s.mergesSinceSync = 0;
        d.shards.push_back(std::move(item));
    }
    if (!d.shards.empty()) {
        // The center evaluates the global model with the batch-norm
        // statistics the regions' edges report here (no gradient carries them).
        if (m_replica)
            d.buffers = m_replica->buffers();
        out.send(std::move(d));
    }
}

void SynapticOwner::onCenterValues(double now, Message &&m, Outbox &out) {
    std::vector<ShardItem> updated;
    std::vector<ShardItem> whole;
    std::map<int, Message> forwards;
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
}

void SynapticOwner::onCatchUpRequest(double now, const Message &m, Outbox &out) {
    (void)now;
    m_gate.observe(m.origin, m.lease);
    Message v;
    v.kind = MessageKind::Values;
    v.to = m.from;
    // As in every Values message: the asker's newest window these values
    // include (not this owner's merge count), so the edge never takes a
    // catch-up answer for the answer to a later window.
    v.round = m_mergedWindow[m.origin];
    for (const auto &[id, s] : m_shards)
        v.shards.push_back(wholeValuesItem(id, s));
    out.send(std::move(v)); // sent even when empty: it answers the request
}

std::string SynapticOwner::moveShard(double now, int shard, int toEdge, Outbox &out) {
    const auto &shape = *m_ctx.shape;
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
    item.mergesSinceSync = s.mergesSinceSync;
    item.syncInFlight = s.syncInFlight;
    item.syncSequence = s.syncSequence;
    item.finishing = m_finishing;
    item.residual = s.centerFeedback.residual();
    if (!s.published.empty()) {
        item.published = s.published.published();
        item.deltaFrom = s.published.version();
    }
    h.shards.push_back(std::move(item));
    out.send(std::move(h));
    m_shards.erase(shard);
    m_forwardTo[shard] = ClusterShape::nodeOfEdge(toEdge);
    return "";
}

std::vector<int> SynapticOwner::onHandoff(double now, Message &&m, Outbox &out) {
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
        s.mergesSinceSync = item.mergesSinceSync;
        s.syncInFlight = item.syncInFlight;
        s.syncSequence = item.syncSequence;
        s.centerFeedback.setResidual(item.residual);
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
    return taken;
}

} // namespace synaptic::engine
