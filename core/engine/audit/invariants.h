#pragma once

#include "lease_history.h"

#include "core/engine/sim/sim_events.h"

#include <string>
#include <vector>

namespace synaptic::engine {

// Every invariant a run's audit history must satisfy (issue 15 §3),
// checked over the AuditEvents a run recorded (from messages nodes sent and
// updates they reported, never from the verdicts of the guards), in
// tests, benchmarks and `synaptic-node check FILE`:
//   "versions_monotonic": per shard, no node's version (as owner, as the
//     center, as a cache) ever goes back;
//   "sent_under_live_lease", "applied_under_live_lease": lease_history.h;
//   "no_split_brain": no two copies of one shard and version in one region
//     (or at the center) hold different values (checksums differ);
//   "applied_exactly_once": no contribution is applied twice, none that
//     nobody sent is applied;
//   "every_contribution_accounted": every contribution sent is applied, or
//     reported lost with its reason (a network drop, an owner's crash, a
//     stale lease, too stale, the run ending with it buffered or in flight);
//   "trains_after_catch_up": an edge with a new lease epoch (back from a
//     lapse, a partition or a restart) sends gradients computed only on
//     shard versions at least those its region's owners held when the
//     epoch was granted; a restarted edge (its Restore event), at least
//     those they held when it restarted, even under the same epoch;
//   "every_request_answered": every inference request that reached an
//     edge is answered, or died with the edge (a read-only edge serves);
//   "lease_epochs_unique": no lease epoch is granted to two edges, and no
//     edge is granted an epoch older than one it held;
//   "center_merges_once": the center, or a shard's hub, merges no region
//     delta twice (one restored from an older state forgot, with its
//     model, the merges after that state was written).
// How much of a run a history covers. Whole: every invariant is checked.
// CutShort (a recording whose writer was killed): a contribution with no
// outcome yet is indeterminate, as in Jepsen, not a violation. StartsMidRun
// (a recording begun while the run was going): what happened before it is
// unknown, so only what needs no beginning is checked (versions never go
// back, no split brain, nothing applied twice, requests answered, epochs
// unique, merges once); not the lease checks, the accounting or catch-up.
enum class HistoryScope { Whole, CutShort, StartsMidRun };

// Returns the violations in time order; empty when every invariant holds.
std::vector<Violation> checkInvariants(const std::vector<AuditEvent> &history,
                                       HistoryScope scope = HistoryScope::Whole);

// The names above, in that order (for reports that list what was checked).
const std::vector<std::string> &invariantNames();

// The lease part of a history, as checkLeaseInvariants reads it.
LeaseHistory leaseHistoryOf(const std::vector<AuditEvent> &history);

// One line for a reader: the invariant, where, when, and why.
std::string describeViolation(const Violation &v);

} // namespace synaptic::engine
