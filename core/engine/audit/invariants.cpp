#include "invariants.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>

namespace synaptic::engine {

namespace {

using K = AuditEvent::Kind;
// kCenterNode (message.h), not included: the checkers build without LibTorch.
constexpr int kCenterNodeId = 0;
// The reasons owners give for contributions whose merge a crash undid
// (synaptic_owner.cpp): merged after the last durable write, or past the
// old state file a node restarted from.
bool undoesAMerge(const std::string &reason) {
    return reason == "merge_not_persisted" || reason == "restored_old_state";
}

std::string secondsText(double t) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", t);
    return buf;
}

void checkVersions(const std::vector<AuditEvent> &history, std::vector<Violation> &out) {
    // (node, cache, region, shard) -> newest version seen
    std::map<std::tuple<int, bool, int, int>, std::uint64_t> newest;
    auto see = [&](const AuditEvent &e, int shard, std::uint64_t version) {
        auto [it, fresh] = newest.try_emplace({e.node, e.cache, e.region, shard}, version);
        if (fresh)
            return;
        if (version < it->second)
            out.push_back({"versions_monotonic", shard, e.node, e.time,
                           std::string(e.cache                 ? "cached copy"
                                       : e.region >= 0             ? "owner copy"
                                       : e.node == kCenterNodeId ? "center copy"
                                                                   : "hub copy") +
                               " went back from version " + std::to_string(it->second) + " to " +
                               std::to_string(version)});
        it->second = std::max(it->second, version);
    };
    for (const auto &e : history) {
        if (e.kind != K::Version)
            continue;
        if (!e.cache)
            see(e, e.shard, e.version);
        for (std::size_t i = 0; e.cache && i < e.shards.size() && i < e.versions.size(); ++i)
            see(e, e.shards[i], e.versions[i]);
    }
}

void checkSplitBrain(const std::vector<AuditEvent> &history, std::vector<Violation> &out) {
    struct Seen {
        std::uint64_t checksum;
        int node;
        double time;
    };
    std::map<std::tuple<int, int, std::uint64_t>, Seen> first; // (region, shard, version)
    for (const auto &e : history) {
        if (e.kind != K::Version || e.cache)
            continue;
        auto [it, fresh] = first.try_emplace({e.region, e.shard, e.version}, Seen{e.checksum, e.node, e.time});
        if (!fresh && it->second.checksum != e.checksum)
            out.push_back({"no_split_brain", e.shard, e.node, e.time,
                           "version " + std::to_string(e.version) +
                               (e.region >= 0             ? " in region " + std::to_string(e.region)
                                : e.node == kCenterNodeId ? std::string(" at the center")
                                                          : std::string(" at its hub")) +
                               " holds different values here and at node " + std::to_string(it->second.node) +
                               " (at " + secondsText(it->second.time) + " s)"});
    }
}

using Contribution = std::pair<int, std::uint64_t>; // (shard, id): a window's id is the same in every shard

std::string named(const Contribution &c) {
    return "contribution " + std::to_string(c.second) + " to shard " + std::to_string(c.first);
}

void checkAccounting(const std::vector<AuditEvent> &history, HistoryScope scope, std::vector<Violation> &out) {
    std::map<Contribution, const AuditEvent *> sentBy;
    std::map<Contribution, int> applied;
    std::map<Contribution, const AuditEvent *> lost;
    for (const auto &e : history) {
        if (e.kind == K::Send) {
            for (std::size_t i = 0; i < e.ids.size() && i < e.shards.size(); ++i)
                sentBy.emplace(Contribution{e.shards[i], e.ids[i]}, &e);
        } else if (e.kind == K::Lost) {
            const bool rolledBack = undoesAMerge(e.reason);
            for (std::size_t i = 0; i < e.ids.size(); ++i) {
                const Contribution c{i < e.shards.size() ? e.shards[i] : e.shard, e.ids[i]};
                lost.emplace(c, &e);
                // A merge a crash undid: applying the window again later is its first time.
                if (const auto a = applied.find(c); rolledBack && a != applied.end() && a->second > 0)
                    --a->second;
            }
        } else if (e.kind == K::Apply) {
            for (auto id : e.ids) {
                const Contribution c{e.shard, id};
                if (++applied[c] == 2)
                    out.push_back({"applied_exactly_once", e.shard, e.node, e.time, named(c) + " was applied a second time"});
                if (!sentBy.count(c) && scope != HistoryScope::StartsMidRun)
                    out.push_back({"applied_exactly_once", e.shard, e.node, e.time, named(c) + " was applied but never sent"});
            }
        }
    }
    if (scope != HistoryScope::Whole)
        return; // without the end, an outcome may still be coming (indeterminate)
    for (const auto &[c, send] : sentBy)
        if (!applied.count(c) && !lost.count(c))
            out.push_back({"every_contribution_accounted", c.first, send->node, send->time,
                           named(c) + " sent at " + secondsText(send->time) + " s was neither applied nor reported lost"});
}

void checkCatchUp(const std::vector<AuditEvent> &history, std::vector<Violation> &out) {
    // Each edge's newest epoch, and what began the catch-up it is held to:
    // that epoch's grant, or a restart since (a new process catches up
    // anew, even under an epoch it still holds).
    std::map<int, std::uint64_t> epochOf;
    std::map<int, std::string> heldSince;
    // (region, shard) -> the owners' newest version, and a copy of it when each edge's catch-up began.
    std::map<std::pair<int, int>, std::uint64_t> ownerVersion;
    std::map<int, std::map<std::pair<int, int>, std::uint64_t>> snapshot;
    for (const auto &e : history) {
        if (e.kind == K::Version && !e.cache && e.region >= 0) {
            auto &v = ownerVersion[{e.region, e.shard}];
            v = std::max(v, e.version);
        } else if (e.kind == K::Restore && e.node != kCenterNodeId) {
            // At the restart, not the next grant: a grant sent before it
            // may arrive after it, and the owners' versions then are a
            // lower bound of what any later grant would hold it to.
            snapshot[e.node] = ownerVersion;
            heldSince[e.node] = "it restarted at " + secondsText(e.time) + " s";
        } else if (e.kind == K::Grant) {
            auto [it, fresh] = epochOf.try_emplace(e.node, e.epoch);
            if (fresh || it->second != e.epoch) {
                it->second = e.epoch;
                snapshot[e.node] = ownerVersion; // what catching up must reach
                heldSince[e.node] = "lease epoch " + std::to_string(e.epoch) + " was granted at " + secondsText(e.time) + " s";
            }
        } else if (e.kind == K::Send && e.region >= 0) {
            const auto snap = snapshot.find(e.node);
            if (snap == snapshot.end())
                continue;
            for (std::size_t i = 0; i < e.shards.size() && i < e.versions.size(); ++i) {
                const auto v = snap->second.find({e.region, e.shards[i]});
                if (v != snap->second.end() && e.versions[i] < v->second)
                    out.push_back({"trains_after_catch_up", e.shards[i], e.node, e.time,
                                   "sent gradients computed on version " + std::to_string(e.versions[i]) +
                                       " though its owner was at version " + std::to_string(v->second) + " when " +
                                       heldSince[e.node]});
            }
        }
    }
}

// Lease epochs are one cluster-wide counter at the center: an epoch is
// granted to one edge only, and an edge's epochs only go up. A center that
// restarted without its counter (or from an old file without skipping
// past what it had granted) grants an epoch again.
void checkEpochs(const std::vector<AuditEvent> &history, std::vector<Violation> &out) {
    std::map<std::uint64_t, std::pair<int, double>> holder; // epoch -> (edge node, first granted at)
    std::map<int, std::uint64_t> newest;                     // edge node -> its newest epoch
    for (const auto &e : history) {
        if (e.kind != K::Grant || e.epoch == 0)
            continue;
        const auto [it, fresh] = holder.try_emplace(e.epoch, e.node, e.time);
        if (!fresh && it->second.first != e.node)
            out.push_back({"lease_epochs_unique", -1, e.node, e.time,
                           "lease epoch " + std::to_string(e.epoch) + " granted here was granted to node " +
                               std::to_string(it->second.first) + " at " + secondsText(it->second.second) + " s"});
        auto &mine = newest[e.node];
        if (e.epoch < mine)
            out.push_back({"lease_epochs_unique", -1, e.node, e.time,
                           "lease epoch " + std::to_string(e.epoch) + " granted after epoch " + std::to_string(mine)});
        mine = std::max(mine, e.epoch);
    }
}

// The center merges each region delta once: a copy of one it merged (an
// owner's resend after a lost answer, a duplicate on the link) is answered
// again, never merged again. A delta is known by its region, shard, the
// owner's sequence, the global version it is based on and its data's
// checksum. A center restored from state written at W forgot its merges
// after W (the global model lost them too), so merging one of those again
// is its first time.
void checkCenterMerges(const std::vector<AuditEvent> &history, std::vector<Violation> &out) {
    // Keyed by the merging node too: under hub merges each shard's hub
    // merges it, and a node's restart undoes only its own merges (an edge
    // hosting a hub restored the hub's state written at its `writtenAt`;
    // an edge hosting none merged nothing).
    using Delta = std::tuple<int, int, int, std::uint64_t, std::uint64_t, std::uint64_t>;
    std::map<Delta, double> mergedAt;
    for (const auto &e : history) {
        if (e.kind == K::Restore) {
            std::erase_if(mergedAt, [&](const auto &m) {
                return std::get<0>(m.first) == e.node && m.second > e.writtenAt;
            });
            continue;
        }
        if (e.kind != K::Merge || e.ids.empty())
            continue;
        const Delta d{e.node, e.region, e.shard, e.ids.front(), e.version, e.checksum};
        const auto [it, fresh] = mergedAt.try_emplace(d, e.time);
        if (!fresh)
            out.push_back({"center_merges_once", e.shard, e.node, e.time,
                           "region " + std::to_string(e.region) + "'s delta " + std::to_string(e.ids.front()) +
                               " (based on version " + std::to_string(e.version) + ") was merged a second time, first at " +
                               secondsText(it->second) + " s"});
    }
}

// Per edge, the newest Serve record: every request that arrived is
// answered, died with its edge or is still being served; a read-only edge
// (its lease lapsed by the grant history) keeps answering too.
void checkServing(const std::vector<AuditEvent> &history, std::vector<Violation> &out) {
    std::map<int, double> leaseUntil;     // edge node -> its newest grant's expiry
    std::map<int, double> lapsedAt;       // edge node -> the latest moment it held no live lease
    std::map<int, double> previousServe;  // edge node -> the time of its previous Serve record
    std::map<int, std::uint64_t> reported; // edge node -> unanswered requests already reported
    for (const auto &e : history) {
        if (e.kind == K::Grant) {
            const auto held = leaseUntil.find(e.node);
            if (held == leaseUntil.end() || held->second < e.time)
                lapsedAt[e.node] = e.time; // no live lease until this grant
            leaseUntil[e.node] = std::max(leaseUntil[e.node], e.expiresAt);
            continue;
        }
        if (e.kind != K::Serve)
            continue;
        const double since = previousServe.count(e.node) ? previousServe[e.node] : 0.0;
        previousServe[e.node] = e.time;
        const std::uint64_t accounted = e.answered + e.abandoned + e.pending;
        if (accounted >= e.requests || e.requests - accounted <= reported[e.node])
            continue;
        const std::uint64_t missing = e.requests - accounted - reported[e.node];
        reported[e.node] += missing;
        const auto lease = leaseUntil.find(e.node);
        const bool lapsedNow = lease == leaseUntil.end() || lease->second < e.time;
        const bool lapsedBetween = lapsedAt.count(e.node) && lapsedAt[e.node] >= since;
        out.push_back({"every_request_answered", -1, e.node, e.time,
                       std::to_string(missing) + " inference request(s) since " + secondsText(since) +
                           " s were neither answered nor lost with the edge" +
                           (lapsedNow || lapsedBetween ? " (its lease lapsed meanwhile: read-only)" : "")});
    }
}

} // namespace

LeaseHistory leaseHistoryOf(const std::vector<AuditEvent> &history) {
    LeaseHistory h;
    for (const auto &e : history) {
        const int edge = e.node - 1; // lease_history.h speaks of edge indices
        switch (e.kind) {
        case K::Grant: h.grants.push_back({e.time, edge, Lease{e.epoch, e.expiresAt}}); break;
        case K::Send: h.sends.push_back({e.time, edge, Lease{e.epoch, e.expiresAt}, e.ids}); break;
        case K::Apply: h.applies.push_back({e.time, e.node, e.shard, e.ids}); break;
        default: break;
        }
    }
    return h;
}

const std::vector<std::string> &invariantNames() {
    static const std::vector<std::string> names{"versions_monotonic",       "sent_under_live_lease",
                                                "applied_under_live_lease", "no_split_brain",
                                                "applied_exactly_once",     "every_contribution_accounted",
                                                "trains_after_catch_up",    "every_request_answered",
                                                "lease_epochs_unique",      "center_merges_once"};
    return names;
}

std::vector<Violation> checkInvariants(const std::vector<AuditEvent> &history, HistoryScope scope) {
    std::vector<Violation> out;
    checkVersions(history, out);
    if (scope != HistoryScope::StartsMidRun)
        for (auto &v : checkLeaseInvariants(leaseHistoryOf(history)))
            out.push_back(std::move(v));
    checkSplitBrain(history, out);
    checkAccounting(history, scope, out);
    if (scope != HistoryScope::StartsMidRun)
        checkCatchUp(history, out);
    checkServing(history, out);
    checkEpochs(history, out);
    checkCenterMerges(history, out);
    std::stable_sort(out.begin(), out.end(), [](const Violation &a, const Violation &b) { return a.time < b.time; });
    return out;
}

std::string describeViolation(const Violation &v) {
    std::string where = v.node == 0 ? "center" : v.node > 0 ? "node " + std::to_string(v.node) : "cluster";
    if (v.shard >= 0)
        where += ", shard " + std::to_string(v.shard);
    return v.invariant + " violated at " + secondsText(v.time) + " s (" + where + "): " + v.detail;
}

} // namespace synaptic::engine
