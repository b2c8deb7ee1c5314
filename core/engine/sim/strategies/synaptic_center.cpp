#include "synaptic_center.h"

#include "shard_hubs.h"

#include "core/engine/durable/state_codec.h"
#include "core/engine/durable/state_store.h"
#include "core/engine/synapse/flat_model.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <map>
#include <set>

namespace synaptic::engine {

namespace {

// A region that has not reported this long after the first one is merged
// without: a partitioned region must not stop the others.
constexpr double kMergeDeadlineSeconds = 2.0;
// A region that sent a delta this recently still trains: evaluation uses
// its batch-norm statistics (those of a region that finished long ago no
// longer match the weights the others keep moving).
constexpr double kActiveRegionSeconds = 3 * kMergeDeadlineSeconds;
// How far two nodes' clocks may disagree in rate: an edge measures its
// lease on its own clock, shortened by this share so a clock that runs
// slow still ends the lease before the center does.
constexpr double kLeaseClockRateBound = 0.01;
} // namespace

SynapticCenter::SynapticCenter(const NodeContext &ctx, Role role)
    : SimNode(role == Role::Hub ? ctx.node : kCenterNode), m_ctx(ctx), m_role(role), m_owners(ctx.model->plan.owner),
      m_leases(ctx.shape->edgeCount(), ctx.config->knobs.leaseSeconds),
      m_outer(ctx.config->knobs.outerOptimizer, ctx.config->knobs.outerLearningRate,
              ctx.config->knobs.outerMomentum) {
    std::int64_t offset = 0;
    for (const auto &spec : ctx.model->plan.shards) {
        Shard s;
        s.global = ctx.model->initialValues.slice(0, offset, offset + spec.parameters).clone();
        s.checksums.emplace_front(0, tensorChecksum(s.global));
        m_shards.push_back(std::move(s));
        offset += spec.parameters;
    }
    if (role == Role::Hub) {
        const auto mine = shardsOfHub(ctx, ctx.node);
        m_hubShards.insert(mine.begin(), mine.end());
        // A process started over its old state: its host's start reloads it.
        m_crashed = ctx.stateStore && ctx.stateStore->read(ctx.node, StatePart::Hub);
    }
}

void SynapticCenter::start(double now, Outbox &out) {
    // A first start writes the state a crash before the first merge returns
    // to. Without a store a kill keeps memory: reports received before it
    // are kept, their deadlines are not (timers die with the process).
    if (m_ctx.stateStore && !m_written)
        persist(out);
    for (std::size_t i = 0; i < m_shards.size(); ++i)
        if (!m_shards[i].reports.empty())
            armDeadline(now, int(i), out);
    if (pullsFromHubs())
        out.timer(now + m_ctx.config->knobs.hubPullSeconds, kPull);
}

void SynapticCenter::revive(double now, bool fromOldState, Outbox &out) {
    if (m_crashed) {
        restoreAfterCrash(now, fromOldState, out);
        AuditEvent restored; // for the audit: merges and grants after m_writtenAt died with the memory
        restored.time = now;
        restored.kind = AuditEvent::Kind::Restore;
        restored.node = m_ctx.node;
        restored.writtenAt = m_writtenAt;
        out.report(SimEvent{restored});
    }
    start(now, out);
}

void SynapticCenter::restoreAfterCrash(double now, bool fromOldState, Outbox &out) {
    m_crashed = false;
    const StatePart part = m_role == Role::Hub ? StatePart::Hub : StatePart::Node;
    const std::string where = m_ctx.stateStore->describe(m_ctx.node, part);
    const auto newest = m_ctx.stateStore->read(m_ctx.node, part);
    if (!newest)
        throw StateFileError(where + ": no durable state to restart from");
    const auto older = fromOldState ? m_ctx.stateStore->readPrevious(m_ctx.node, part) : std::nullopt;
    decodeState(older ? *older : *newest, older ? where + ".prev" : where);
    m_centerHeard.clear(); // a hub: the center's next pull says again whom it hears
    m_leases.resumeAfterRestart(m_writtenAt, now, std::uint64_t(m_ctx.shape->edgeCount()));
    if (m_ctx.faults.breakEpochCounter) // test-only: epochs granted before the crash are granted again
        m_leases.restore(std::vector<Lease>(m_leases.leases()), 1);
    // test-only (breakRestoreVersionJump): a hub resumes at the old file's versions
    const bool jump = m_role == Role::Center || !m_ctx.faults.breakRestoreVersionJump;
    if (older && jump) {
        // The newer file may have named one more version: skip past it
        // (the values are unchanged, so regions based on either match).
        // Every version bump is written before an answer names it, so
        // the file before the newest is at most one behind.
        for (auto &s : m_shards) {
            ++s.version;
            s.remember(s.version, s.checksums.front().second);
        }
    }
    m_lastSeen = now;
    persist(out); // the skipped epochs (and versions) are durable before any is issued
}

void SynapticCenter::armDeadline(double now, int shard, Outbox &out) {
    auto &s = m_shards[std::size_t(shard)];
    s.deadlineArmed = true;
    // The timer argument carries the shard and the generation of its reports.
    out.timer(now + kMergeDeadlineSeconds, kMergeDeadline, (s.deadlineGeneration << 20) | std::uint64_t(shard));
}

void SynapticCenter::onKilled(double, Outbox &) {
    for (auto &s : m_shards)
        s.deadlineArmed = false;
    m_crashed = m_ctx.stateStore != nullptr; // revive() reads the state back
}

void SynapticCenter::onTimer(double now, int kind, std::uint64_t arg, Outbox &out) {
    m_lastSeen = std::max(m_lastSeen, now);
    if (kind == kPull && pullsFromHubs()) {
        sendPulls(now, out);
        out.timer(now + m_ctx.config->knobs.hubPullSeconds, kPull);
        return;
    }
    if (kind != kMergeDeadline)
        return;
    const int shard = int(arg & ((1u << 20) - 1));
    auto &s = m_shards[std::size_t(shard)];
    if ((arg >> 20) != s.deadlineGeneration)
        return; // those reports were merged already
    s.deadlineArmed = false;
    if (!s.reports.empty())
        mergeShards(now, {shard}, out);
}

at::Tensor SynapticCenter::globalValues() const {
    std::vector<at::Tensor> parts;
    for (const auto &s : m_shards)
        parts.push_back(s.global);
    return at::cat(parts);
}

bool SynapticCenter::evaluationModel(at::Tensor &values, at::Tensor &buffers) const {
    values = globalValues();
    buffers = evaluationBuffers();
    return true;
}

at::Tensor SynapticCenter::evaluationBuffers() const {
    // Batch-norm statistics go with the weights they were measured on: per
    // region the mean of its owners' latest statistics, then the mean over
    // the regions the center still hears from (a finished region that
    // still serves holds its place in the global model, mergeShards, so its
    // statistics hold theirs) and those with a delta within
    // kActiveRegionSeconds of the newest one. A region that is gone would
    // pin statistics that no longer match the weights the others train.
    double newest = -1;
    for (const auto &[region, at] : m_lastDeltaAt)
        newest = std::max(newest, at);
    const auto heard = heardRegions(m_lastSeen);
    std::map<int, std::pair<at::Tensor, int>> perRegion;
    for (const auto &[node, b] : m_buffers) {
        const int region = m_ctx.shape->regionOfEdge[std::size_t(ClusterShape::edgeOfNode(node))];
        const auto last = m_lastDeltaAt.find(region);
        if (!heard.count(region) && last != m_lastDeltaAt.end() && newest - last->second > kActiveRegionSeconds)
            continue;
        auto &[rsum, n] = perRegion[region];
        rsum = rsum.defined() ? rsum.add_(b) : b.clone();
        ++n;
    }
    at::Tensor sum;
    int count = 0;
    for (auto &[region, rs] : perRegion) {
        auto &[rsum, n] = rs;
        rsum.div_(double(n));
        sum = sum.defined() ? sum.add_(rsum) : rsum;
        ++count;
    }
    return sum.defined() ? sum.div_(double(count)) : m_ctx.model->initialBuffers.clone();
}

std::set<int> SynapticCenter::heardRegions(double now) const {
    std::set<int> regions;
    if (m_role == Role::Hub) {
        // What the center's newest pull said (leases: a finished region
        // whose edges still serve holds its place), and any region whose
        // delta came within a lease's length (the center may be down or
        // cut off from this hub, and then its word grows old).
        regions = m_centerHeard;
        for (const auto &[region, at] : m_lastDeltaAt)
            if (now - at <= m_ctx.config->knobs.leaseSeconds)
                regions.insert(region);
        return regions;
    }
    for (int edge = 0; edge < m_ctx.shape->edgeCount(); ++edge)
        if (m_leases.lease(edge).validAt(now))
            regions.insert(m_ctx.shape->regionOfEdge[std::size_t(edge)]);
    return regions;
}

int SynapticCenter::shardsWithReports() const {
    return int(std::count_if(m_shards.begin(), m_shards.end(), [](const Shard &s) { return !s.reports.empty(); }));
}

bool SynapticCenter::idle() const {
    return std::all_of(m_shards.begin(), m_shards.end(), [](const Shard &s) { return s.reports.empty(); });
}

void SynapticCenter::onHeartbeat(double now, const Message &m, Outbox &out) {
    const int edge = ClusterShape::edgeOfNode(m.from);
    const double seconds = m_ctx.config->knobs.leaseSeconds;
    if (m_leases.leaseSeconds() != seconds)
        m_leases.setLeaseSeconds(seconds);
    if (m.last) { // the edge leaves: its lease ends now, no grant
        m_leases.release(edge, m.lease.epoch, now);
        out.report(LeaseEvent{now, edge, "released", m.lease.epoch});
        return;
    }
    Message grant;
    grant.kind = MessageKind::LeaseGrant;
    grant.to = m.from;
    const auto epochsBefore = m_leases.nextEpoch();
    grant.lease = m_leases.heartbeat(edge, m.lease.epoch, now);
    if (m_leases.nextEpoch() != epochsBefore)
        persist(out); // a restart must never grant this epoch again
    // The expiry on the edge's own clock: its heartbeat's send time by that
    // clock plus what is left of the lease now. The heartbeat left before
    // this grant, so whatever the clocks' offset, the edge's lease ends
    // before the center's (DESIGN.md §1: a lapsed edge never writes).
    grant.writtenAt = m.writtenAt + (grant.lease.expiresAt - now) * (1 - kLeaseClockRateBound);
    if (m.join) // a (re)started edge learns its region's owners as they are now
        grant.owners = m_owners[std::size_t(m_ctx.shape->regionOfEdge[std::size_t(edge)])];
    out.send(grant);
}

void SynapticCenter::onMessage(double now, Message &&m, Outbox &out) {
    m_lastSeen = std::max(m_lastSeen, now);
    if (m_role == Role::Hub && m.from == kCenterNode && m.kind == MessageKind::HubPull) {
        answerPull(now, m, out);
        return;
    }
    if (m.from < 1 || m.from > m_ctx.shape->edgeCount())
        return; // only edges talk to the center
    if (pullsFromHubs() && m.kind == MessageKind::HubCopy) {
        takePulled(now, std::move(m), out);
        return;
    }
    if (m.kind == MessageKind::Heartbeat) {
        onHeartbeat(now, m, out);
        return;
    }
    const int region = m_ctx.shape->regionOfEdge[std::size_t(ClusterShape::edgeOfNode(m.from))];
    if (m.kind == MessageKind::OwnerAnnounce) {
        auto &owners = m_owners[std::size_t(region)];
        for (const auto &item : m.shards)
            if (item.shard >= 0 && std::size_t(item.shard) < owners.size())
                owners[std::size_t(item.shard)] = ClusterShape::edgeOfNode(m.from);
        persist(out); // joining edges are told these owners, after a restart too
        return;
    }
    if (m.kind != MessageKind::CenterDelta || pullsFromHubs())
        return; // the hubs merge: a delta sent here is a misconfigured owner's
    if (m.buffers.defined())
        m_buffers[m.from] = m.buffers;
    m_lastDeltaAt[region] = now;
    std::vector<int> ready;
    Message again;
    bool resynced = false; // a region's copy reset by an answer again: durable before it leaves
    for (auto &item : m.shards) {
        if (item.shard < 0 || std::size_t(item.shard) >= m_shards.size() ||
            (m_role == Role::Hub && !m_hubShards.count(item.shard)))
            continue; // a hub merges only its own shards: another's would fork
        auto &s = m_shards[std::size_t(item.shard)];
        if (answerResent(region, s, item, again, resynced))
            continue;
        // One report per region per merge: a newer one replaces an older.
        std::erase_if(s.reports, [&](const Report &r) { return r.region == region; });
        s.reports.push_back({region, m.from, std::move(item)});
        const int shard = s.reports.back().item.shard;
        if (int(s.reports.size()) == m_ctx.shape->regionCount()) {
            ready.push_back(shard);
        } else if (!s.deadlineArmed) {
            armDeadline(now, shard, out);
        }
    }
    if (!again.shards.empty()) {
        if (resynced)
            persist(out);
        out.ledger(LedgerReport::Kind::CenterResentMerged, again.shards.size());
        again.kind = MessageKind::CenterValues;
        again.to = m.from;
        again.round = m_round;
        out.send(std::move(again));
    }
    if (!ready.empty())
        mergeShards(now, ready, out);
}

bool SynapticCenter::answerResent(int region, Shard &s, const ShardItem &item, Message &reply, bool &resynced) {
    const auto r = std::size_t(region);
    if (r >= s.merged.size() || m_ctx.faults.breakMergeOnce)
        return false;
    const MergedDelta seen{item.sequence, item.version, item.checksum, tensorChecksum(item.data)};
    if (std::find(s.merged[r].begin(), s.merged[r].end(), seen) == s.merged[r].end())
        return false;
    if (r < s.lastAnswer.size() && s.lastAnswer[r].sequence == item.sequence && s.lastAnswer[r].data.defined()) {
        reply.shards.push_back(s.lastAnswer[r]); // as it was: the owner may hold it already
        return true;
    }
    // The answer died with this center's memory: the whole global copy,
    // from which the region resyncs.
    resynced = true;
    reply.shards.push_back(wholeAnswer(item.shard, s, r, item.sequence));
    return true;
}

SimEvent SynapticCenter::mergeRecord(double now, int shard, const Report &r, std::uint64_t dataChecksum) const {
    AuditEvent e;
    e.time = now;
    e.kind = AuditEvent::Kind::Merge;
    e.node = m_ctx.node;
    e.shard = shard;
    e.region = r.region;
    e.version = r.item.version;
    e.checksum = dataChecksum;
    e.ids = {r.item.sequence};
    return e;
}

void SynapticCenter::sizeRegionCopies(Shard &s) const {
    // A hub keeps one more: the center's copy, which its pulls are coded from.
    const auto copies = std::size_t(m_ctx.shape->regionCount() + (m_role == Role::Hub ? 1 : 0));
    if (s.regionCopy.size() < copies) {
        s.regionCopy.resize(copies);
        s.regionChecksum.resize(s.regionCopy.size());
    }
}

ShardItem SynapticCenter::wholeAnswer(int id, Shard &s, std::size_t region, std::uint64_t sequence) {
    sizeRegionCopies(s);
    ShardItem item;
    item.shard = id;
    item.version = s.version;
    item.sequence = sequence;
    item.checksum = s.checksums.front().second;
    item.data = s.global.clone();
    // Later coded deltas to the region start from this copy.
    auto &copy = s.regionCopy[region];
    copy = DeltaPublisher{};
    if (m_ctx.config->codecs.center.codec != Codec::Fp32) {
        copy.reset(s.global, s.version);
        s.regionChecksum[region] = item.checksum;
    }
    return item;
}

void SynapticCenter::mergeShards(double now, const std::vector<int> &shards, Outbox &out) {
    const auto &k = m_ctx.config->knobs;
    m_outer.setParameters(k.outerOptimizer, k.outerLearningRate, k.outerMomentum);
    ConsistencyEvent check;
    check.time = now;
    check.round = ++m_round;
    std::map<int, Message> replies; // by owner node
    const auto heard = heardRegions(now);
    for (int id : shards) {
        auto &s = m_shards[std::size_t(id)];
        // Consistency: a region's delta must be based on a global version this
        // center issued, with the checksum that version had. Others are not
        // merged; the region gets the global copy back and resyncs from it.
        std::vector<const Report *> valid;
        for (const auto &r : s.reports) {
            ++check.checked;
            const auto it = std::find_if(s.checksums.begin(), s.checksums.end(),
                                         [&](const auto &vc) { return vc.first == r.item.version; });
            const auto region = std::size_t(r.region);
            const bool coded = region < s.regionCopy.size() && !s.regionCopy[region].empty();
            const bool based = coded ? s.regionCopy[region].version() == r.item.version &&
                                           s.regionChecksum[region] == r.item.checksum
                                     : it != s.checksums.end() && it->second == r.item.checksum;
            if (!based) {
                ++check.mismatches;
                ++m_mismatches;
                continue;
            }
            valid.push_back(&r);
            const std::uint64_t dataChecksum = tensorChecksum(r.item.data);
            out.report(mergeRecord(now, id, r, dataChecksum));
            if (s.merged.size() < std::size_t(m_ctx.shape->regionCount()))
                s.merged.resize(std::size_t(m_ctx.shape->regionCount()));
            auto &seen = s.merged[region];
            seen.push_front({r.item.sequence, r.item.version, r.item.checksum, dataChecksum});
            if (seen.size() > kMergedHistory)
                seen.pop_back();
        }
        double worst = 0;
        if (!valid.empty()) {
            at::Tensor sum;
            for (const auto *r : valid)
                sum = sum.defined() ? sum.add_(r->item.data) : r->item.data.clone();
            const auto before = s.global.clone();
            // The mean over every region the center still hears from and
            // every region in this merge: a region out of step (merged at
            // its deadline) or finished (its edges serve and heartbeat,
            // their deltas are zero) holds its place, so a lone region's
            // delta moves the global model by its share, as in a merge of
            // all. A cut region drops out once its leases lapse.
            auto regions = heard;
            for (const auto *r : valid)
                regions.insert(r->region);
            m_outer.step(s.global, sum.div_(double(regions.size())), s.momentum);
            out.compute(m_ctx.computeSeconds((double(valid.size()) + kOuterFlopsPerParameter) * double(s.global.numel())));
            ++s.version;
            s.mergedAt = now;
            s.remember(s.version, tensorChecksum(s.global));
            RouteReport r{RouteReport::Kind::CenterVersion, id, -1, -1, s.version, 0};
            r.checksum = s.checksums.front().second;
            out.report(r);
            // Drift: how far each region's copy is from the new global one
            // (the version lag is the driver's to fill in: only it sees every cache).
            const double norm = std::max(s.global.norm().item<double>(), 1e-12);
            for (const auto *r : valid) {
                const double drift = (before + r->item.data - s.global).norm().item<double>() / norm;
                worst = std::max(worst, drift);
                out.report(DriftEvent{now, id, r->region, 0, drift});
            }
            out.report(RouteReport{RouteReport::Kind::ParameterDrift, id, -1, -1, 0, worst});
        }
        check.maxDrift = std::max(check.maxDrift, worst);
        for (const auto &r : s.reports) {
            auto &reply = replies[r.node];
            reply.kind = MessageKind::CenterValues;
            reply.to = r.node;
            reply.round = m_round;
            reply.shards.push_back(answerItem(id, s, r));
            if (s.lastAnswer.size() < std::size_t(m_ctx.shape->regionCount()))
                s.lastAnswer.resize(std::size_t(m_ctx.shape->regionCount()));
            s.lastAnswer[std::size_t(r.region)] = reply.shards.back();
        }
        s.reports.clear();
        s.deadlineArmed = false;
        ++s.deadlineGeneration; // a timer armed for these reports must not fire on the next ones
    }
    persist(out); // before any answer names the new versions
    for (auto &[node, reply] : replies)
        out.send(std::move(reply));
    // A hub's checks stay its own (consistencyMismatches): a center sync is
    // the center taking a pull (takePulled), which serving's release counts.
    if (m_role == Role::Center)
        out.report(check);
}

void SynapticCenter::seedCopyFromInitial(int id, Shard &s, std::size_t region, const ShardItem &report) {
    // Every region starts from the initial values (version 0), so a delta
    // based on them needs no whole copy first: the answer can already be a
    // coded delta from there. Otherwise each region's first answer goes
    // whole at fp32: on the default config three fp32 copies of the model
    // (1.2 MB) per run, where int8 sends a quarter of that.
    if (report.version != 0)
        return;
    const std::int64_t offset = m_ctx.model->shardOffset(id);
    const auto initial =
        m_ctx.model->initialValues.slice(0, offset, offset + m_ctx.model->plan.shards[std::size_t(id)].parameters);
    const std::uint64_t checksum = tensorChecksum(initial);
    if (checksum != report.checksum)
        return; // not the initial values after all: it gets the whole copy
    s.regionCopy[region].reset(initial, 0); // reset keeps its own copy
    s.regionChecksum[region] = checksum;
}

ShardItem SynapticCenter::answerItem(int id, Shard &s, const Report &r) {
    const CodecSpec &codec = m_ctx.config->codecs.center;
    const auto region = std::size_t(r.region);
    sizeRegionCopies(s);
    ShardItem item;
    item.shard = id;
    item.version = s.version;
    item.sequence = r.item.sequence;
    auto &copy = s.regionCopy[region];
    if (codec.codec != Codec::Fp32 && copy.empty())
        seedCopyFromInitial(id, s, region, r.item);
    const bool based = !copy.empty() && copy.version() == r.item.version && s.regionChecksum[region] == r.item.checksum;
    if (codec.codec != Codec::Fp32 && based) {
        // What changed since the copy the region holds, coded; the codec's
        // error stays in the record and goes out with the next answer.
        item.delta = true;
        item.deltaFrom = copy.version();
        at::Tensor global = s.global;
        setCoded(item.data, item.coding, copy.publish(global, s.version, codec));
        s.regionChecksum[region] = tensorChecksum(copy.published());
        item.checksum = s.regionChecksum[region];
        return item;
    }
    // Whole global copy: fp32, a region's first answer when it is not based
    // on the initial values, or a region that is not based on what this
    // center sent it (it resyncs from here).
    return wholeAnswer(id, s, region, r.item.sequence);
}

void SynapticCenter::persist(Outbox &out) {
    if (!m_ctx.stateStore)
        return;
    out.persist(encodeState()); // a hub's host writes it as its StatePart::Hub (SynapticEdge::runHub)
    m_written = true;
}

} // namespace synaptic::engine
