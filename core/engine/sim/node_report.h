#pragma once

#include "sim_events.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace synaptic::engine {

// What a node tells its observers (DESIGN.md §3): a node never writes a
// cluster-wide table or counter itself. It puts reports in its outbox; the
// driver folds them into the shared views (routing table, contribution
// ledger, samples trained, the event stream) in the order they were made.
// A live process sends its reports to the center, which folds them the same
// way. Plain values: they cross threads and processes as copies.

// A training step finished and counted: `samples` more were trained, and
// the driver may apply commands now (a step boundary).
struct StepReport {
    std::uint64_t samples = 0;
};

// A window gradient's contribution id, unique across restarts of a live
// edge (whose window count starts over): edge, incarnation, window.
inline std::uint64_t contributionId(int edge, std::uint32_t incarnation, std::uint64_t window) {
    return (std::uint64_t(edge) << 40) | (std::uint64_t(incarnation & 0xFF) << 32) | (window & 0xFFFFFFFFull);
}
inline int contributionEdge(std::uint64_t id) { return int(id >> 40); }

// The contribution ledger (issue 3 §8): every merged window gradient from
// the moment an edge sends it to the moment an owner applies or rejects it.
struct LedgerReport {
    enum class Kind {
        Sent,                     // count; ids: the window's contribution id (every item it sent shares it)
        Applied,                  // shard, ids (one per contribution)
        Rejected,                 // count (stale or expired lease, too far behind)
        Forwarded,                // count (rerouted by a former owner after a move)
        LostInCrash,              // count (buffered at an owner that was killed)
        AppliedUnderExpiredLease, // count (audit: must stay 0)
        SentWhileReadOnly,        // count (audit: must stay 0)
        RolledBack,               // shard, ids: merged, but the merge died with a crashed owner's memory
        MergesLost,               // count: merges a crash undid (at most durable_every_merges per shard)
        StateWritten,             // count: durable state writes
        CenterResent,             // count: center deltas an owner sent again (unanswered past the timeout)
        CenterResentMerged,       // count: a copy (resent or duplicated) of a delta the center had merged: answered again only
    };
    Kind kind = Kind::Sent;
    int shard = -1;
    std::uint64_t count = 0;
    std::vector<std::uint64_t> ids; // Applied, Rejected, LostInCrash, RolledBack: the contributions
    std::string reason;             // Rejected: why ("stale_epoch", "expired_lease", "too_stale", ...)
};

// A change a node made to what it owns or caches, for the routing table.
struct RouteReport {
    enum class Kind {
        OwnerVersion,   // shard, region, version (an owner applied an update)
        CachedVersion,  // shard, edge, version (an edge cached new values)
        Owner,          // shard, region, edge (a move landed at its new owner)
        CenterVersion,  // shard, version (the center merged regions)
        ParameterDrift, // shard, value (the center measured the worst region's drift)
    };
    Kind kind = Kind::OwnerVersion;
    int shard = 0;
    int region = -1;
    int edge = -1;
    std::uint64_t version = 0;
    double value = 0;
    std::uint64_t checksum = 0; // OwnerVersion / CenterVersion: of the values at `version` (split-brain audit)
};

// Events a node emits (lease changes, drift, consistency checks). The driver
// completes what a node cannot know: a DriftEvent's version lag comes from
// the driver's routing table, a RoutingEvent's revision from its table.
using NodeReport = std::variant<StepReport, LedgerReport, RouteReport, SimEvent>;

} // namespace synaptic::engine
