#include "lease.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace synaptic::engine {

namespace {
void checkEdge(int edge, std::size_t count) {
    if (edge < 0 || std::size_t(edge) >= count)
        throw std::invalid_argument("lease: no edge " + std::to_string(edge));
}
void checkSeconds(double seconds) {
    if (!(seconds > 0))
        throw std::invalid_argument("lease: duration must be > 0 seconds");
}
} // namespace

LeaseRegistry::LeaseRegistry(int edges, double leaseSeconds) : m_leases(std::size_t(edges)), m_seconds(leaseSeconds) {
    checkSeconds(leaseSeconds);
}

Lease LeaseRegistry::heartbeat(int edge, std::uint64_t heldEpoch, double now) {
    checkEdge(edge, m_leases.size());
    Lease &current = m_leases[std::size_t(edge)];
    // An edge holding an epoch newer than this center's record was granted
    // it by this center before a restart from an older state file: the
    // lease on record is one the edge has left behind, so it gets a new
    // epoch (past every one the newer file could have named: see
    // resumeAfterRestart) instead of being told an epoch it would ignore.
    // Only an epoch this center could have granted (below its counter):
    // a bogus higher one changes nothing, or every heartbeat would burn an
    // epoch and a state write.
    const bool forgotten = heldEpoch > current.epoch && heldEpoch < m_nextEpoch;
    if (current.validAt(now) && !forgotten) {
        // A renewal never shortens a lease (a shorter lease_seconds knob
        // applies to new grants and as renewals catch up): the edge may act
        // on the expiry it was already told, and the center must not grant
        // a new epoch before that expiry, or two epochs would overlap.
        if (heldEpoch == current.epoch)
            current.expiresAt = std::max(current.expiresAt, now + m_seconds);
        return current;
    }
    current = Lease{m_nextEpoch++, now + m_seconds};
    return current;
}

void LeaseRegistry::release(int edge, std::uint64_t heldEpoch, double now) {
    checkEdge(edge, m_leases.size());
    Lease &current = m_leases[std::size_t(edge)];
    if (current.epoch == heldEpoch && current.validAt(now))
        current.expiresAt = now;
}

const Lease &LeaseRegistry::lease(int edge) const {
    checkEdge(edge, m_leases.size());
    return m_leases[std::size_t(edge)];
}

void LeaseRegistry::restore(std::vector<Lease> leases, std::uint64_t nextEpoch) {
    if (leases.size() != m_leases.size())
        throw std::invalid_argument("lease: restored state has " + std::to_string(leases.size()) +
                                    " edges, the cluster has " + std::to_string(m_leases.size()));
    m_leases = std::move(leases);
    m_nextEpoch = std::max<std::uint64_t>(1, nextEpoch);
}

void LeaseRegistry::resumeAfterRestart(double writtenAt, double now, std::uint64_t skipEpochs) {
    for (auto &l : m_leases)
        if (l.validAt(writtenAt))
            l.expiresAt = std::max(l.expiresAt, now + m_seconds);
    m_nextEpoch += skipEpochs;
}

void LeaseRegistry::setLeaseSeconds(double seconds) {
    checkSeconds(seconds);
    m_seconds = seconds;
}

void EdgeLeaseState::onLease(const Lease &lease, double now) {
    const bool newEpoch = lease.epoch != m_lease.epoch;
    if (lease.epoch < m_lease.epoch)
        return; // a delayed answer about an older grant
    m_lease = lease;
    if (!m_lease.validAt(now)) {
        m_mode = Mode::ReadOnly;
        return;
    }
    // A new epoch means this edge was cut off (or is new): its cache may be
    // behind, so it catches up before it trains again.
    if (newEpoch || m_mode == Mode::ReadOnly)
        m_mode = Mode::CatchingUp;
}

void EdgeLeaseState::onCaughtUp(double now) {
    if (m_mode == Mode::CatchingUp && m_lease.validAt(now))
        m_mode = Mode::Training;
}

EdgeLeaseState::Mode EdgeLeaseState::tick(double now) {
    if (!m_lease.validAt(now))
        m_mode = Mode::ReadOnly;
    return m_mode;
}

EpochGate::EpochGate(int edges) : m_latestEpoch(std::size_t(edges), 0) {}

void EpochGate::observe(int edge, const Lease &lease) {
    checkEdge(edge, m_latestEpoch.size());
    auto &latest = m_latestEpoch[std::size_t(edge)];
    if (lease.epoch > latest)
        latest = lease.epoch;
}

EpochGate::Verdict EpochGate::check(int edge, const Lease &stamped, double sentAt) {
    checkEdge(edge, m_latestEpoch.size());
    Verdict verdict = Verdict::Accepted;
    if (stamped.epoch == 0)
        verdict = Verdict::NoLease;
    else if (stamped.epoch < m_latestEpoch[std::size_t(edge)])
        verdict = Verdict::StaleEpoch;
    else if (!stamped.validAt(sentAt))
        verdict = Verdict::ExpiredLease;
    if (verdict == Verdict::Accepted) {
        observe(edge, stamped); // a newer epoch seen first on a message
        ++m_accepted;
    } else {
        ++m_rejected;
    }
    return verdict;
}

const char *verdictName(EpochGate::Verdict verdict) {
    switch (verdict) {
    case EpochGate::Verdict::Accepted: return "accepted";
    case EpochGate::Verdict::StaleEpoch: return "stale_epoch";
    case EpochGate::Verdict::ExpiredLease: return "expired_lease";
    case EpochGate::Verdict::NoLease: return "no_lease";
    }
    return "?";
}

} // namespace synaptic::engine
