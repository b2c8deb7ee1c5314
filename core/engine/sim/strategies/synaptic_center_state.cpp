// The synaptic center's durable state (issue 15 §1): what a restarted
// center must not forget, and the checks that refuse a file that does not
// fit this cluster before any of it replaces the center's state.
#include "synaptic_center.h"

#include "core/engine/durable/state_codec.h"

#include <ATen/ATen.h>

#include <limits>

namespace synaptic::engine {

namespace {
constexpr std::int64_t kCenterMark = -1; // an owner's state starts with its edge id (>= 0)
} // namespace

std::string SynapticCenter::encodeState() const {
    StateWriter w;
    w.i64(kCenterMark);
    w.f64(m_lastSeen); // when this state was current: leases valid then may have been renewed since
    w.u64(m_round);
    w.u64(m_mismatches);
    w.f64(m_leases.leaseSeconds());
    w.u64(m_leases.nextEpoch());
    w.u64(m_leases.leases().size());
    for (const auto &l : m_leases.leases()) {
        w.u64(l.epoch);
        w.f64(l.expiresAt);
    }
    w.u64(m_owners.size());
    for (const auto &region : m_owners) {
        std::vector<std::uint64_t> owners;
        for (int e : region)
            owners.push_back(std::uint64_t(std::int64_t(e)));
        w.ids(owners);
    }
    w.u64(m_buffers.size());
    for (const auto &[node, buffers] : m_buffers) {
        w.i64(node);
        w.tensor(buffers);
    }
    w.u64(m_lastDeltaAt.size());
    for (const auto &[region, at] : m_lastDeltaAt) {
        w.i64(region);
        w.f64(at);
    }
    w.u64(m_shards.size());
    for (std::size_t i = 0; i < m_shards.size(); ++i) {
        const auto &s = m_shards[i];
        if (!holdsInState(int(i))) {
            // A hub's other shards: their starting values, never merged here.
            w.tensor(at::Tensor());
            continue;
        }
        w.tensor(s.global);
        w.tensor(s.momentum);
        w.u64(s.version);
        w.u64(s.checksums.size());
        for (const auto &[version, checksum] : s.checksums) {
            w.u64(version);
            w.u64(checksum);
        }
        w.u64(s.regionCopy.size());
        for (std::size_t r = 0; r < s.regionCopy.size(); ++r) {
            w.tensor(s.regionCopy[r].published());
            w.u64(s.regionCopy[r].version());
            w.u64(r < s.regionChecksum.size() ? s.regionChecksum[r] : 0);
        }
        w.u64(s.merged.size());
        for (const auto &seen : s.merged) {
            w.u64(seen.size());
            for (const auto &d : seen) {
                w.u64(d.sequence);
                w.u64(d.baseVersion);
                w.u64(d.baseChecksum);
                w.u64(d.dataChecksum);
            }
        }
    }
    return w.finish();
}

void SynapticCenter::decodeState(const std::string &bytes, const std::string &source) {
    StateReader r(bytes, source);
    auto refuse = [&source](const std::string &what) { throw StateFileError(source + ": " + what); };
    if (r.i64() != kCenterMark)
        refuse("not a center's state (an owner's?)");
    const std::string &device = m_ctx.model->device;
    auto count = [&](std::uint64_t most, const char *what) {
        const auto n = r.u64();
        if (n > most)
            refuse(std::to_string(n) + " " + what + ", at most " + std::to_string(most) + " fit this cluster");
        return n;
    };
    const auto edges = std::uint64_t(m_ctx.shape->edgeCount());
    const auto regions = std::uint64_t(m_ctx.shape->regionCount());
    const auto &plan = m_ctx.model->plan;
    const double writtenAt = r.f64();
    const auto round = r.u64();
    const auto mismatches = r.u64();
    const double seconds = r.f64();
    const auto nextEpoch = r.u64();
    if (nextEpoch > std::numeric_limits<std::uint64_t>::max() / 2)
        refuse("next lease epoch " + std::to_string(nextEpoch) + " is past any this center issues");
    if (r.u64() != edges)
        refuse("leases for another number of edges than this cluster's " + std::to_string(edges));
    std::vector<Lease> leases(edges);
    for (auto &l : leases) {
        l.epoch = r.u64();
        l.expiresAt = r.f64();
        if (l.epoch >= nextEpoch && l.epoch > 0)
            refuse("lease epoch " + std::to_string(l.epoch) + " was never issued (next is " +
                   std::to_string(nextEpoch) + ")");
    }
    if (r.u64() != regions)
        refuse("owners for another number of regions than this cluster's " + std::to_string(regions));
    std::vector<std::vector<int>> owners(regions);
    for (std::size_t region = 0; region < owners.size(); ++region) {
        for (auto e : r.ids()) {
            const auto edge = std::int64_t(e);
            if (edge < 0 || edge >= std::int64_t(edges) ||
                std::uint64_t(m_ctx.shape->regionOfEdge[std::size_t(edge)]) != region)
                refuse("owner edge " + std::to_string(edge) + " is not an edge of region " + std::to_string(region));
            owners[region].push_back(int(edge));
        }
        if (owners[region].size() != plan.shards.size())
            refuse("region " + std::to_string(region) + " names owners for " + std::to_string(owners[region].size()) +
                   " shards, the plan has " + std::to_string(plan.shards.size()));
    }
    const auto bufferValues = m_ctx.model->initialBuffers.defined() ? m_ctx.model->initialBuffers.numel() : 0;
    std::map<int, at::Tensor> buffers;
    for (auto n = count(edges, "buffer sets"); n > 0; --n) {
        const auto node = r.i64();
        auto b = r.tensor(device);
        if (node < 1 || node > std::int64_t(edges) || !b.defined() || b.numel() != bufferValues)
            refuse("batch-norm statistics of node " + std::to_string(node) + " do not fit this model");
        buffers[int(node)] = std::move(b);
    }
    std::map<int, double> lastDeltaAt;
    for (auto n = count(regions, "region times"); n > 0; --n) {
        const auto region = r.i64();
        if (region < 0 || region >= std::int64_t(regions))
            refuse("no region " + std::to_string(region));
        lastDeltaAt[int(region)] = r.f64();
    }
    if (r.u64() != m_shards.size())
        refuse("written for a plan with another number of shards");
    std::vector<Shard> shards(m_shards.size());
    for (std::size_t i = 0; i < shards.size(); ++i) {
        auto &s = shards[i];
        const auto expected = plan.shards[i].parameters;
        auto fits = [expected](const at::Tensor &t) { return t.defined() && t.numel() == expected; };
        const std::string shard = "shard " + std::to_string(i);
        s.global = r.tensor(device);
        if (!holdsInState(int(i))) {
            if (s.global.defined())
                refuse(shard + " is not one this hub merges");
            s.global = m_shards[i].global;
            s.version = m_shards[i].version;
            s.checksums = m_shards[i].checksums;
            continue;
        }
        if (!fits(s.global)) // before reading on: another node's file goes out of step here
            refuse(shard + " does not hold the " + std::to_string(expected) + " values the plan says");
        s.momentum = r.tensor(device);
        if (s.momentum.defined() && !fits(s.momentum))
            refuse(shard + " does not hold the " + std::to_string(expected) + " values the plan says");
        s.version = r.u64();
        for (auto n = count(kChecksumHistory, "checksums"); n > 0; --n) {
            const auto version = r.u64();
            s.checksums.emplace_back(version, r.u64());
        }
        if (s.checksums.empty() || s.checksums.front().first != s.version)
            refuse(shard + "'s checksum history does not start at its version " + std::to_string(s.version));
        s.regionCopy.resize(count(m_role == Role::Hub ? regions + 1 : regions, "region copies")); // a hub's: + the center's
        s.regionChecksum.resize(s.regionCopy.size());
        for (std::size_t k = 0; k < s.regionCopy.size(); ++k) {
            auto published = r.tensor(device);
            const auto version = r.u64();
            s.regionChecksum[k] = r.u64();
            if (published.defined() && !fits(published))
                refuse(shard + "'s copy at region " + std::to_string(k) + " does not fit the plan");
            if (published.defined())
                s.regionCopy[k].reset(published, version);
        }
        s.merged.resize(count(regions, "regions of merged deltas"));
        for (auto &seen : s.merged)
            for (auto n = count(kMergedHistory, "merged deltas"); n > 0; --n) {
                MergedDelta d;
                d.sequence = r.u64();
                d.baseVersion = r.u64();
                d.baseChecksum = r.u64();
                d.dataChecksum = r.u64();
                seen.push_back(d);
            }
    }
    r.expectEnd();
    // Only a whole, checked file replaces the state.
    m_writtenAt = writtenAt;
    m_round = round;
    m_mismatches = mismatches;
    if (seconds > 0)
        m_leases.setLeaseSeconds(std::max(seconds, m_ctx.config->knobs.leaseSeconds));
    m_leases.restore(std::move(leases), nextEpoch);
    m_owners = std::move(owners);
    m_buffers = std::move(buffers);
    m_lastDeltaAt = std::move(lastDeltaAt);
    m_shards = std::move(shards);
}

} // namespace synaptic::engine
