#pragma once

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// A lease the center grants an edge. Every new grant (first contact or
// re-acquire after expiry) gets a new epoch; renewals keep it.
struct Lease {
    std::uint64_t epoch = 0; // 0 = never granted
    double expiresAt = 0;    // virtual seconds
    bool validAt(double now) const { return epoch > 0 && now < expiresAt; }
};

// Center side. Engine thread only.
class LeaseRegistry {
public:
    LeaseRegistry(int edges, double leaseSeconds);

    // An edge's heartbeat presenting the epoch it holds. A valid lease is
    // renewed (same epoch, new expiry); an expired or never-granted one is
    // replaced by a new epoch. An edge presenting an old epoch while a newer
    // one is valid is told the current lease, unchanged; one presenting a
    // newer epoch than the record (granted before a restart from an older
    // state file) gets a new epoch.
    Lease heartbeat(int edge, std::uint64_t heldEpoch, double now);
    // The edge leaves cleanly: its lease of `heldEpoch` ends now (a later
    // heartbeat gets a new epoch). An older epoch releases nothing.
    void release(int edge, std::uint64_t heldEpoch, double now);
    const Lease &lease(int edge) const;
    void setLeaseSeconds(double seconds); // live knob; applies from the next renewal
    double leaseSeconds() const { return m_seconds; }

    // Durable state (issue 15 §1): what a restarted center must not forget.
    const std::vector<Lease> &leases() const { return m_leases; }
    std::uint64_t nextEpoch() const { return m_nextEpoch; }
    // A restarted center takes back the leases and next epoch it wrote.
    void restore(std::vector<Lease> leases, std::uint64_t nextEpoch);
    // Then resumes: renewals after the write (at `writtenAt`) may have
    // promised more time to any lease valid then, so each such lease runs
    // on at least a full duration from `now` (no new epoch for that edge
    // before its old one surely ended; released or lapsed leases stay
    // ended); epochs resume `skipEpochs` on, so none is issued twice even
    // from an older file.
    void resumeAfterRestart(double writtenAt, double now, std::uint64_t skipEpochs);

private:
    std::vector<Lease> m_leases;
    double m_seconds;
    std::uint64_t m_nextEpoch = 1;
};

// Edge side: what an edge may do under its lease (DESIGN.md §1). Expiry makes
// it read-only at once (it still serves inference); a new lease makes it catch
// up to current versions first, and only then train again.
class EdgeLeaseState {
public:
    enum class Mode { ReadOnly, CatchingUp, Training };

    // The center's answer to a heartbeat.
    void onLease(const Lease &lease, double now);
    // Catch-up finished (every cached shard at its owner's version).
    void onCaughtUp(double now);
    // Advances time; returns the mode now in force.
    Mode tick(double now);

    Mode mode() const { return m_mode; }
    const Lease &lease() const { return m_lease; }
    bool canTrain(double now) const { return m_mode == Mode::Training && m_lease.validAt(now); }
    bool canServeInference() const { return true; }

private:
    Lease m_lease;
    Mode m_mode = Mode::ReadOnly; // no lease yet
};

// Owner side: decides whether an update stamped with the sender's lease may
// be applied. Nothing written under an expired or superseded epoch is.
class EpochGate {
public:
    enum class Verdict { Accepted, StaleEpoch, ExpiredLease, NoLease };

    explicit EpochGate(int edges);
    // The owner learned an edge's current lease (from the center, or from a
    // message carrying a newer epoch).
    void observe(int edge, const Lease &lease);
    // `stamped` is the lease the sender held when it sent at `sentAt`.
    Verdict check(int edge, const Lease &stamped, double sentAt);

    std::uint64_t accepted() const { return m_accepted; }
    std::uint64_t rejected() const { return m_rejected; }
    // The newest epoch seen per edge: an owner's durable state keeps it, so
    // a restarted owner still refuses superseded epochs.
    const std::vector<std::uint64_t> &latestEpochs() const { return m_latestEpoch; }
    void restoreLatestEpochs(std::vector<std::uint64_t> epochs) {
        if (epochs.size() == m_latestEpoch.size())
            m_latestEpoch = std::move(epochs);
    }

private:
    std::vector<std::uint64_t> m_latestEpoch;
    std::uint64_t m_accepted = 0;
    std::uint64_t m_rejected = 0;
};

// "accepted", "stale_epoch", "expired_lease", "no_lease": why an update was refused.
const char *verdictName(EpochGate::Verdict verdict);

} // namespace synaptic::engine
