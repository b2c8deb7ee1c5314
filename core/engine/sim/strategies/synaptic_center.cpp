#include "synaptic_center.h"

#include "core/engine/synapse/flat_model.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <set>

namespace synaptic::engine {

namespace {
constexpr std::size_t kChecksumHistory = 16;
// A region that has not reported this long after the first one is merged
// without: a partitioned region must not stop the others.
constexpr double kMergeDeadlineSeconds = 2.0;
} // namespace

SynapticCenter::SynapticCenter(SimWorld &world)
    : SimNode(kCenterNode), m_world(world), m_leases(world.edgeCount(), world.config.knobs.leaseSeconds),
      m_outer(world.config.knobs.outerOptimizer, world.config.knobs.outerLearningRate,
              world.config.knobs.outerMomentum) {
    std::int64_t offset = 0;
    for (const auto &spec : world.plan.shards) {
        Shard s;
        s.global = world.initialValues.slice(0, offset, offset + spec.parameters).clone();
        s.checksums.emplace_front(0, tensorChecksum(s.global));
        m_shards.push_back(std::move(s));
        offset += spec.parameters;
    }
}

void SynapticCenter::start(double now, Outbox &out) {
    // First start, or a restart: reports received before a crash are kept
    // (on disk), their deadlines are not (timers die with the process).
    for (std::size_t i = 0; i < m_shards.size(); ++i)
        if (!m_shards[i].reports.empty())
            armDeadline(now, int(i), out);
}

void SynapticCenter::armDeadline(double now, int shard, Outbox &out) {
    auto &s = m_shards[std::size_t(shard)];
    s.deadlineArmed = true;
    // The timer argument carries the shard and the generation of its reports.
    out.timer(now + kMergeDeadlineSeconds, kMergeDeadline, (s.deadlineGeneration << 20) | std::uint64_t(shard));
}

void SynapticCenter::onKilled(double) {
    for (auto &s : m_shards)
        s.deadlineArmed = false;
}

void SynapticCenter::onTimer(double now, int kind, std::uint64_t arg, Outbox &out) {
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

bool SynapticCenter::idle() const {
    return std::all_of(m_shards.begin(), m_shards.end(), [](const Shard &s) { return s.reports.empty(); });
}

void SynapticCenter::onMessage(double now, Message &&m, Outbox &out) {
    if (m.kind == MessageKind::Heartbeat) {
        const int edge = SimWorld::edgeOfNode(m.from);
        if (m_leases.leaseSeconds() != m_world.config.knobs.leaseSeconds)
            m_leases.setLeaseSeconds(m_world.config.knobs.leaseSeconds);
        Message grant;
        grant.kind = MessageKind::LeaseGrant;
        grant.to = m.from;
        grant.lease = m_leases.heartbeat(edge, m.lease.epoch, now);
        out.send(grant);
        return;
    }
    if (m.kind != MessageKind::CenterDelta)
        return;
    const int region = m_world.regionOfEdge[std::size_t(SimWorld::edgeOfNode(m.from))];
    std::vector<int> ready;
    for (auto &item : m.shards) {
        auto &s = m_shards[std::size_t(item.shard)];
        // One report per region per merge: a newer one replaces an older.
        std::erase_if(s.reports, [&](const Report &r) { return r.region == region; });
        s.reports.push_back({region, m.from, std::move(item)});
        const int shard = s.reports.back().item.shard;
        if (int(s.reports.size()) == m_world.regionCount()) {
            ready.push_back(shard);
        } else if (!s.deadlineArmed) {
            armDeadline(now, shard, out);
        }
    }
    if (!ready.empty())
        mergeShards(now, ready, out);
}

void SynapticCenter::mergeShards(double now, const std::vector<int> &shards, Outbox &out) {
    const auto &k = m_world.config.knobs;
    m_outer.setParameters(k.outerOptimizer, k.outerLearningRate, k.outerMomentum);
    ConsistencyEvent check;
    check.time = now;
    check.round = ++m_round;
    std::map<int, Message> replies; // by owner node
    const auto snap = m_world.routing->snapshot();
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
            if (it == s.checksums.end() || it->second != r.item.checksum) {
                ++check.mismatches;
                ++m_mismatches;
                continue;
            }
            valid.push_back(&r);
        }
        double worst = 0;
        if (!valid.empty()) {
            at::Tensor sum;
            for (const auto *r : valid)
                sum = sum.defined() ? sum.add_(r->item.data) : r->item.data.clone();
            const auto before = s.global.clone();
            m_outer.step(s.global, sum.div_(double(valid.size())), s.momentum);
            ++s.version;
            s.checksums.emplace_front(s.version, tensorChecksum(s.global));
            if (s.checksums.size() > kChecksumHistory)
                s.checksums.pop_back();
            m_world.routing->setCenterVersion(id, s.version);
            // Drift: how far each region's copy is from the new global one.
            const double norm = std::max(s.global.norm().item<double>(), 1e-12);
            const auto lag = snap->rows[std::size_t(id)]->versionLag(snap->regionOfEdge);
            for (const auto *r : valid) {
                const double drift = (before + r->item.data - s.global).norm().item<double>() / norm;
                worst = std::max(worst, drift);
                m_world.emit(DriftEvent{now, id, r->region, lag, drift});
            }
            m_world.routing->setParameterDrift(id, worst);
        }
        check.maxDrift = std::max(check.maxDrift, worst);
        for (const auto &r : s.reports) {
            auto &reply = replies[r.node];
            reply.kind = MessageKind::CenterValues;
            reply.to = r.node;
            reply.round = m_round;
            ShardItem item;
            item.shard = id;
            item.version = s.version;
            item.checksum = s.checksums.front().second;
            item.sequence = r.item.sequence;
            item.data = s.global.clone();
            reply.shards.push_back(std::move(item));
        }
        s.reports.clear();
        s.deadlineArmed = false;
        ++s.deadlineGeneration; // a timer armed for these reports must not fire on the next ones
    }
    for (auto &[node, reply] : replies)
        out.send(std::move(reply));
    m_world.emit(check);
}

} // namespace synaptic::engine
