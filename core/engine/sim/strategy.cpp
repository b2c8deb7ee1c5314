#include "strategy.h"

#include <stdexcept>

namespace synaptic::engine {

std::unique_ptr<Strategy> makeSynapticStrategy();
std::unique_ptr<Strategy> makeParamServerStrategy();
std::unique_ptr<Strategy> makeAllReduceStrategy();
std::unique_ptr<Strategy> makeDiLoCoStrategy();
std::unique_ptr<Strategy> makeGossipStrategy();
std::unique_ptr<Strategy> makeHierAllReduceStrategy();
std::unique_ptr<Strategy> makeHierDiLoCoStrategy();
std::unique_ptr<SimNode> makeSynapticNode(const NodeContext &ctx);
std::unique_ptr<SimNode> makeParamServerNode(const NodeContext &ctx);
std::unique_ptr<SimNode> makeDiLoCoNode(const NodeContext &ctx);

std::unique_ptr<Strategy> makeStrategy(const std::string &name) {
    if (name == "synaptic") return makeSynapticStrategy();
    if (name == "param_server") return makeParamServerStrategy();
    if (name == "allreduce") return makeAllReduceStrategy();
    if (name == "diloco") return makeDiLoCoStrategy();
    if (name == "gossip") return makeGossipStrategy();
    if (name == "hier_allreduce") return makeHierAllReduceStrategy();
    if (name == "hier_diloco") return makeHierDiLoCoStrategy();
    throw std::invalid_argument("unknown strategy \"" + name + "\" (synaptic, param_server, allreduce, diloco, hier_allreduce, hier_diloco, gossip)");
}

bool runsLive(const std::string &name) {
    return name == "synaptic" || name == "param_server" || name == "diloco";
}

std::unique_ptr<SimNode> makeStrategyNode(const std::string &name, const NodeContext &ctx) {
    if (name == "synaptic") return makeSynapticNode(ctx);
    if (name == "param_server") return makeParamServerNode(ctx);
    if (name == "diloco") return makeDiLoCoNode(ctx);
    throw std::invalid_argument("strategy \"" + name + "\" does not run as separate processes (synaptic, "
                                "param_server and diloco do)");
}

} // namespace synaptic::engine
