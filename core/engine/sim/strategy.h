#pragma once

#include "sim_command.h"
#include "sim_node.h"
#include "sim_world.h"

#include <memory>
#include <string>
#include <vector>

namespace synaptic::engine {

// One way of training the cluster (issue 3 §7): builds its nodes and tells
// the harness which model to evaluate. The harness reads models directly:
// that is measurement, not protocol, and costs no virtual time or bytes.
class Strategy {
public:
    virtual ~Strategy() = default;

    // Node i: 0 = center, 1..E = edges, each built from world.context(i).
    virtual std::vector<std::unique_ptr<SimNode>> createNodes(SimWorld &world) = 0;
    // The model whose accuracy the strategy is judged by, values and
    // batch-norm statistics, written into `into`.
    virtual void globalModel(FlatModel &into) = 0;
    // Per-region models (synaptic); 0 when the strategy has none.
    virtual int regionModels() const { return 0; }
    virtual void regionModel(int /*region*/, FlatModel & /*into*/) {}
    // Every edge used its step budget and the last exchange has landed.
    virtual bool finished() const = 0;
    // What keeps finished() false, named per node ("ap-7's owner: 3
    // shard(s) with gradients buffered"), for a run stopped because it
    // never got there.
    // Empty when the strategy does not say.
    virtual std::string unfinishedParts() const { return {}; }
    // Every edge's replica, in edge order (training losses, statistics).
    virtual std::vector<Replica *> replicas() const = 0;
    // Whether the strategy has shard owners per region (the driver then
    // announces the plan's owners as the run's first routing events).
    virtual bool hasShardOwners() const { return false; }
    // The node a move-shard command goes to, or -1 with `why` set.
    virtual int moveTarget(const SimCommand & /*cmd*/, std::string &why) {
        why = "this strategy has no shard owners";
        return -1;
    }
};

std::unique_ptr<Strategy> makeStrategy(const std::string &name);

// Whether `name` runs as separate processes (the live driver): the
// strategies with a center. allreduce and gossip run in the simulator only.
bool runsLive(const std::string &name);
// One node of strategy `name` for a live process: the center (node 0) or
// an edge, built from what its context says. Throws std::invalid_argument
// for a strategy that does not run live.
std::unique_ptr<SimNode> makeStrategyNode(const std::string &name, const NodeContext &ctx);

} // namespace synaptic::engine
