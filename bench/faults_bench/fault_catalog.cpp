#include "fault_catalog.h"

#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/simulation.h"

#include <stdexcept>

namespace synaptic::bench {

using engine::SimCommand;
using K = SimCommand::Kind;

namespace {

constexpr int kCenter = -1; // SimCommand's name for the center

SimCommand at(K kind, double time, int node = -1, int nodeB = -1) {
    SimCommand c{kind, time};
    c.node = node;
    c.nodeB = nodeB;
    return c;
}

// The owner (edge index) of region 0's first shard, and another edge of region 0.
int ownerOfFirstShard(const engine::Simulation &sim) { return sim.world().plan().owner.at(0).at(0); }
int otherEdgeInRegion0(const engine::Simulation &sim, int notThis) {
    for (int e : sim.world().shape->edgesOfRegion.at(0))
        if (e != notThis)
            return e;
    throw std::runtime_error("region 0 has one edge: no other edge to move a shard to");
}
// An edge of region 0 that is not the owner of shard 0 (a plain cache).
int edgeOfRegion0(const engine::Simulation &sim) {
    return otherEdgeInRegion0(sim, ownerOfFirstShard(sim));
}

void killAndRevive(engine::Simulation &sim, int node, const FaultWindow &w, bool oldState = false) {
    sim.submit(at(K::KillNode, w.start, node));
    auto revive = at(K::ReviveNode, w.end, node);
    revive.value = oldState ? 1 : 0;
    sim.submit(revive);
}

// The link between a and b (edge indices, kCenter) is `base` with `edit`
// applied for the fault window, then `base` again.
void editLinkDuringWindow(engine::Simulation &sim, const FaultWindow &w, int a, int b, const engine::LinkSpec &base,
                          const std::function<void(engine::LinkSpec &)> &edit) {
    auto set = at(K::SetLink, w.start, a, b);
    set.link = base;
    edit(set.link);
    auto back = at(K::SetLink, w.end, a, b);
    back.link = base;
    sim.submit(set);
    sim.submit(back);
}

// Region 0's links among its own edges, with `edit` applied, then back.
void degradeRegionLinks(engine::Simulation &sim, const FaultWindow &w,
                        const std::function<void(engine::LinkSpec &)> &edit) {
    const auto &edges = sim.world().shape->edgesOfRegion.at(0);
    for (std::size_t i = 0; i < edges.size(); ++i)
        for (std::size_t j = i + 1; j < edges.size(); ++j)
            editLinkDuringWindow(sim, w, edges[i], edges[j], sim.world().config.intraRegion, edit);
}

const std::vector<std::string> kAll{"synaptic", "param_server", "hier_diloco"};
const std::vector<std::string> kSynaptic{"synaptic"};

std::vector<FaultScenario> build() {
    std::vector<FaultScenario> out;
    // Not a fault: the comparison's noise floor. A harmless timing change
    // (1 ms more latency on one edge's center link) reorders events, and a
    // short run's final accuracy moves by that alone.
    out.push_back({"control", "no fault: one edge's center link 1 ms slower (the comparison's noise floor)", kAll,
                   true, [](engine::Simulation &sim, const FaultWindow &w) {
                       editLinkDuringWindow(sim, w, edgeOfRegion0(sim), kCenter, sim.world().config.edgeCenter,
                                            [](engine::LinkSpec &l) { l.latencySeconds += 0.001; });
                   }});
    out.push_back({"kill_edge", "an edge of region 0 other than shard 0's owner (it owns other shards) dies and comes back", kAll, true,
                   [](engine::Simulation &sim, const FaultWindow &w) { killAndRevive(sim, edgeOfRegion0(sim), w); }});
    out.push_back({"kill_owner", "the owner of shard 0 dies mid-window and restarts from its state file", kSynaptic,
                   true, [](engine::Simulation &sim, const FaultWindow &w) {
                       killAndRevive(sim, ownerOfFirstShard(sim), w);
                   }});
    out.push_back({"kill_center", "the center dies and comes back", kAll, true,
                   [](engine::Simulation &sim, const FaultWindow &w) { killAndRevive(sim, kCenter, w); }});
    out.push_back({"partition_region", "region 0 is cut off from the rest of the cluster", kAll, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       SimCommand cut{K::PartitionRegion, w.start, -1, 0};
                       SimCommand heal{K::HealRegion, w.end, -1, 0};
                       sim.submit(cut);
                       sim.submit(heal);
                   }});
    out.push_back({"one_way_partition", "an edge's messages to the center are lost; the center's still arrive", kAll,
                   true, [](engine::Simulation &sim, const FaultWindow &w) {
                       const int e = edgeOfRegion0(sim);
                       sim.submit(at(K::PartitionOneWay, w.start, e, kCenter));
                       sim.submit(at(K::HealLink, w.end, e, kCenter));
                   }});
    out.push_back({"latency_spike", "region 0's links to the center go to 400 ms", kAll, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       for (int e : sim.world().shape->edgesOfRegion.at(0))
                           editLinkDuringWindow(sim, w, e, kCenter, sim.world().config.edgeCenter,
                                                [](engine::LinkSpec &l) { l.latencySeconds = 0.4; });
                   }});
    out.push_back({"loss_50", "region 0's links lose half their messages", kAll, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       degradeRegionLinks(sim, w, [](engine::LinkSpec &l) { l.lossRate = 0.5; });
                   }});
    out.push_back({"duplicates", "region 0's links deliver half their messages twice", kSynaptic, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       degradeRegionLinks(sim, w, [](engine::LinkSpec &l) { l.duplicateRate = 0.5; });
                   }});
    out.push_back({"reorder", "region 0's links add up to 30 ms of jitter and duplicate 30 %", kSynaptic, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       degradeRegionLinks(sim, w, [](engine::LinkSpec &l) {
                           l.jitterSeconds = 0.030;
                           l.duplicateRate = 0.3;
                       });
                   }});
    out.push_back({"clock_skew", "an edge's lease clock runs 0.5 s behind the center's", kSynaptic, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       const int e = edgeOfRegion0(sim);
                       auto skew = at(K::SetClockSkew, w.start, e);
                       skew.value = 0.5;
                       auto back = at(K::SetClockSkew, w.end, e);
                       back.value = 0;
                       // The skew bites when the lease lapses: cut the edge off meanwhile.
                       sim.submit(skew);
                       sim.submit(at(K::PartitionLink, w.start, e, kCenter));
                       sim.submit(at(K::HealLink, w.end, e, kCenter));
                       sim.submit(back);
                   }});
    out.push_back({"move_kill_source", "shard 0 moves while its old owner dies", kSynaptic, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       const int from = ownerOfFirstShard(sim);
                       const int to = otherEdgeInRegion0(sim, from);
                       sim.submit(SimCommand{K::MoveShard, w.start, 0, 0, to});
                       killAndRevive(sim, from, w);
                   }});
    out.push_back({"move_kill_target", "shard 0 moves while its new owner dies", kSynaptic, true,
                   [](engine::Simulation &sim, const FaultWindow &w) {
                       const int from = ownerOfFirstShard(sim);
                       const int to = otherEdgeInRegion0(sim, from);
                       sim.submit(SimCommand{K::MoveShard, w.start, 0, 0, to});
                       killAndRevive(sim, to, w);
                   }});
    out.push_back({"straggler", "an edge computes at a tenth of its speed for the whole run", kAll, false,
                   [](engine::Simulation &sim, const FaultWindow &) {
                       auto slow = at(K::SetStraggler, 0, edgeOfRegion0(sim));
                       slow.value = 0.1;
                       sim.submit(slow);
                   }});
    out.push_back({"old_state_file", "the owner of shard 0 restarts from the state file before its newest",
                   kSynaptic, true, [](engine::Simulation &sim, const FaultWindow &w) {
                       killAndRevive(sim, ownerOfFirstShard(sim), w, /*oldState=*/true);
                   }});
    return out;
}

} // namespace

const std::vector<FaultScenario> &faultCatalog() {
    static const std::vector<FaultScenario> catalog = build();
    return catalog;
}

std::vector<std::string> quickFaults() {
    return {"control",    "kill_owner", "kill_center",      "partition_region",
            "duplicates", "clock_skew", "move_kill_target", "old_state_file"};
}

} // namespace synaptic::bench
