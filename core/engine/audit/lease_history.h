#pragma once

#include "core/engine/synapse/lease.h"

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::engine {

// What an auditor needs to know about leases and writes, recorded by the
// driver from the messages nodes send and the updates they report (issue 15
// §3), never from the decisions of the guards it audits: the center's
// grants as it sent them, each gradient as its edge sent it (with the lease
// it stamped), and each contribution as an owner applied it.
struct LeaseGrantRecord {
    double time = 0; // when the center sent it
    int edge = 0;
    Lease lease;     // a new epoch, or a renewal (same epoch, an expiry never earlier)
};
struct GradientSendRecord {
    double time = 0; // when the edge sent it
    int edge = 0;
    Lease stamped;   // the lease the edge stamped on it
    std::vector<std::uint64_t> contributions;
};
struct UpdateApplyRecord {
    double time = 0;
    int node = 0;    // the owner (node id: 0 = center, edge e = e + 1)
    int shard = -1;
    std::vector<std::uint64_t> contributions;
};

struct LeaseHistory {
    std::vector<LeaseGrantRecord> grants;
    std::vector<GradientSendRecord> sends;
    std::vector<UpdateApplyRecord> applies;
};

// One broken invariant, named for the reader: which, where, when, and why.
struct Violation {
    std::string invariant;
    int shard = -1;  // -1: not about one shard
    int node = -1;   // node id
    double time = 0;
    std::string detail;
};

// Invariants over a LeaseHistory (DESIGN.md §1: an edge whose lease expired
// is read-only; an owner rejects updates from an expired epoch):
//   "sent_under_live_lease": an edge sends gradients only while the lease
//     it stamps is live by the center's grants (granted at or before the
//     send, not expired, not superseded by a newer epoch);
//   "applied_under_live_lease": every contribution an owner applies was
//     sent under a live lease, checked from the send's own stamp and the
//     grants, not from the owner's gate; one nobody sent is a violation too.
std::vector<Violation> checkLeaseInvariants(const LeaseHistory &history);

} // namespace synaptic::engine
