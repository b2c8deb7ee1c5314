#include "command_applier.h"

#include "knob_commands.h"

#include "sim_serving.h"
#include "sim_transport.h"
#include "sim_world.h"
#include "strategy.h"

#include <cmath>
#include <stdexcept>

namespace synaptic::engine {

CommandApplier::CommandApplier(SimWorld &world, Strategy &strategy, SimTransport &transport, SimServing &serving,
                               Hooks hooks, std::vector<SimCommand> scheduled)
    : m_world(world), m_strategy(strategy), m_transport(transport), m_serving(serving), m_hooks(std::move(hooks)),
      m_scheduled(std::move(scheduled)) {}

void CommandApplier::submit(SimCommand command) {
    std::lock_guard lock(m_mutex);
    m_submitted.push_back(std::move(command));
}

void CommandApplier::applyDue() {
    {
        std::lock_guard lock(m_mutex);
        for (auto &c : m_submitted)
            m_scheduled.push_back(c);
        m_submitted.clear();
    }
    ++m_boundary;
    const double now = m_hooks.now();
    std::vector<SimCommand> later;
    for (const auto &c : m_scheduled) {
        if (c.atBoundary > 0 ? c.atBoundary > m_boundary : c.at > now) {
            later.push_back(c);
            continue;
        }
        const std::string refused = apply(c);
        m_hooks.emit(CommandEvent{now, c.describe(), refused.empty(), refused, c, m_boundary});
    }
    m_scheduled.swap(later);
}

std::string CommandApplier::apply(const SimCommand &c) {
    using K = SimCommand::Kind;
    const int edges = m_world.edgeCount();
    switch (c.kind) {
    case K::MoveShard: {
        std::string why;
        const int target = m_strategy.moveTarget(c, why);
        if (target < 0)
            return why;
        if (!m_hooks.alive(target))
            return "the shard's current owner is down";
        if (c.node < 0 || c.node >= edges || !m_hooks.alive(SimWorld::nodeOfEdge(c.node)))
            return "the new owner is down or unknown";
        return m_hooks.toNode(target, c);
    }
    case K::KillNode:
    case K::ReviveNode: {
        if (c.node < -1 || c.node >= edges)
            return "no such node";
        const int n = c.node < 0 ? kCenterNode : SimWorld::nodeOfEdge(c.node);
        const bool kill = c.kind == K::KillNode;
        if (!m_hooks.exists(n))
            return "this strategy has no such node";
        if (m_hooks.alive(n) != kill)
            return kill ? "already down" : "already running";
        m_hooks.setAlive(n, kill, !kill && c.value > 0);
        return "";
    }
    case K::SetLink:
    case K::PartitionLink:
    case K::HealLink:
    case K::PartitionRegion:
    case K::HealRegion:
    case K::PartitionOneWay:
        return applyNetwork(c);
    case K::SetClockSkew:
    case K::SetStraggler: {
        if (c.node < 0 || c.node >= edges)
            return "no such edge";
        if (!std::isfinite(c.value))
            return "the value must be a number";
        auto &faults = m_world.context(SimWorld::nodeOfEdge(c.node)).faults;
        if (c.kind == K::SetClockSkew) {
            if (std::abs(c.value) > 86400)
                return "clock skew must be within a day";
            faults.leaseClockLagSeconds = c.value;
        } else {
            if (!(c.value > 0 && c.value <= 1))
                return "a straggler's speed must be in (0, 1]";
            faults.computeSpeed = c.value;
        }
        return "";
    }
    default:
        return applyKnob(c);
    }
}

std::string CommandApplier::applyKnob(const SimCommand &c) {
    using K = SimCommand::Kind;
    const std::string refused = applyKnobCommand(m_world.config, c);
    if (!refused.empty())
        return refused;
    if (c.kind == K::SetReleaseCadence)
        m_serving.setReleaseEverySyncs(int(c.value));
    if (c.kind == K::SetConfidenceThreshold) {
        if (c.node < 0)
            std::fill(m_world.confidenceOverride.begin(), m_world.confidenceOverride.end(), std::nan(""));
        else
            m_world.confidenceOverride[std::size_t(c.node)] = c.value;
    }
    return "";
}

std::string CommandApplier::applyNetwork(const SimCommand &c) {
    using K = SimCommand::Kind;
    const int edges = m_world.edgeCount();
    auto validNode = [&](int n) { return n >= -1 && n < edges; };
    auto nodeOf = [](int edgeOrCenter) { return edgeOrCenter < 0 ? kCenterNode : edgeOrCenter + 1; };
    switch (c.kind) {
    case K::SetLink:
        if (!validNode(c.node) || !validNode(c.nodeB) || c.node == c.nodeB)
            return "no such link";
        try {
            m_transport.setLinkSpec(nodeOf(c.node), nodeOf(c.nodeB), c.link);
        } catch (const std::invalid_argument &e) {
            return e.what();
        }
        return "";
    case K::PartitionLink:
    case K::HealLink:
        if (!validNode(c.node) || !validNode(c.nodeB) || c.node == c.nodeB)
            return "no such link";
        m_transport.setLinkUp(nodeOf(c.node), nodeOf(c.nodeB), c.kind == K::HealLink);
        return "";
    case K::PartitionOneWay:
        if (!validNode(c.node) || !validNode(c.nodeB) || c.node == c.nodeB)
            return "no such link";
        m_transport.setDirectionUp(nodeOf(c.node), nodeOf(c.nodeB), false);
        return "";
    case K::PartitionRegion:
    case K::HealRegion:
        if (c.region < 0 || c.region >= m_world.regionCount())
            return "no such region";
        m_transport.setRegionUp(c.region, c.kind == K::HealRegion);
        return "";
    default:
        return "unknown command";
    }
}

} // namespace synaptic::engine
