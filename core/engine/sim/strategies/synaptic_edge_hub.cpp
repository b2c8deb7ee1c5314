// The hub an edge hosts under knobs.hubMerges (SynapticEdge, shard_hubs.h).
#include "shard_hubs.h"
#include "synaptic_edge.h"

#include <cassert>

namespace synaptic::engine {

std::unique_ptr<SynapticCenter> SynapticEdge::makeHub(const NodeContext &ctx, NodeContext &hubContext) {
    // The hub's timers are told apart from the edge's and its owner's by kind.
    static_assert(kCatchUpTimeout < kHubTimerBase && SynapticOwner::kMergeDeadlineTimer < kHubTimerBase &&
                  SynapticOwner::kRecoveryTimer < kHubTimerBase && SynapticOwner::kSyncResendTimer < kHubTimerBase);
    if (shardsOfHub(ctx, ctx.node).empty())
        return nullptr;
    hubContext = ctx; // the same store: the hub writes and reads its StatePart::Hub
    return std::make_unique<SynapticCenter>(hubContext, SynapticCenter::Role::Hub);
}

bool SynapticEdge::forHub(const Message &m) const {
    // Regions' deltas of the shards it is hub of, and the center's pulls.
    // (Its own owner's deltas come here too, from this very node.)
    return m_hub && (m.kind == MessageKind::CenterDelta ||
                     (m.kind == MessageKind::HubPull && m.from == kCenterNode));
}

void SynapticEdge::runHub(const std::function<void(SynapticCenter &, Outbox &)> &input, Outbox &out) {
    m_hubContext.faults = m_ctx.faults; // a straggler's or a skewed clock's, set mid-run (command_applier)
    Outbox hub;
    input(*m_hub, hub);
    // A hub books no compute timers; its state is the node's hub part,
    // written before anything it sends leaves, as the edge's own.
    assert(hub.computeTimers.empty() && !hub.durableHubState);
    if (hub.durableState)
        out.persist(std::move(*hub.durableState), StatePart::Hub);
    for (auto &m : hub.messages)
        out.send(std::move(m));
    for (const auto &t : hub.timers)
        out.timer(t.at, kHubTimerBase + t.kind, t.arg);
    for (auto &r : hub.reports)
        out.report(std::move(r));
    out.compute(hub.computeSeconds); // its merges take this node's compute
}

} // namespace synaptic::engine
