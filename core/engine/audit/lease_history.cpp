#include "lease_history.h"

#include <map>
#include <unordered_map>

namespace synaptic::engine {

namespace {

// An edge's grants in the order the center sent them.
using GrantsByEdge = std::map<int, std::vector<const LeaseGrantRecord *>>;

// Empty when `stamped` was live at `t` by the center's grants; otherwise why not.
std::string whyNotLive(const GrantsByEdge &grants, int edge, const Lease &stamped, double t) {
    if (stamped.epoch == 0)
        return "no lease";
    const auto it = grants.find(edge);
    if (it == grants.end())
        return "epoch " + std::to_string(stamped.epoch) + " was never granted";
    bool granted = false;
    bool live = false;
    for (const auto *g : it->second) {
        if (g->time > t)
            break;
        if (g->lease.epoch > stamped.epoch)
            return "epoch " + std::to_string(stamped.epoch) + " was superseded by epoch " +
                   std::to_string(g->lease.epoch) + " at " + std::to_string(g->time) + " s";
        if (g->lease.epoch == stamped.epoch) {
            granted = true;
            live = live || t < g->lease.expiresAt; // a renewal extends it (LeaseRegistry never shortens one)
        }
    }
    if (!granted)
        return "epoch " + std::to_string(stamped.epoch) + " was not granted before " + std::to_string(t) + " s";
    if (!live)
        return "epoch " + std::to_string(stamped.epoch) + " had expired";
    return {};
}

} // namespace

std::vector<Violation> checkLeaseInvariants(const LeaseHistory &history) {
    GrantsByEdge grants;
    for (const auto &g : history.grants)
        grants[g.edge].push_back(&g);

    std::vector<Violation> out;
    std::unordered_map<std::uint64_t, const GradientSendRecord *> sentBy;
    for (const auto &s : history.sends) {
        for (auto id : s.contributions)
            sentBy.emplace(id, &s);
        if (const auto why = whyNotLive(grants, s.edge, s.stamped, s.time); !why.empty())
            out.push_back({"sent_under_live_lease", -1, s.edge + 1 /* node id of edge */, s.time,
                           "edge " + std::to_string(s.edge) + " sent gradients while read-only: " + why});
    }
    for (const auto &a : history.applies) {
        for (auto id : a.contributions) {
            const auto s = sentBy.find(id);
            if (s == sentBy.end()) {
                out.push_back({"applied_under_live_lease", a.shard, a.node, a.time,
                               "contribution " + std::to_string(id) + " was applied but never sent"});
                continue;
            }
            const auto &send = *s->second;
            if (const auto why = whyNotLive(grants, send.edge, send.stamped, send.time); !why.empty())
                out.push_back({"applied_under_live_lease", a.shard, a.node, a.time,
                               "contribution " + std::to_string(id) + " from edge " + std::to_string(send.edge) +
                                   " sent at " + std::to_string(send.time) + " s: " + why});
        }
    }
    return out;
}

} // namespace synaptic::engine
