#include "strategy.h"

#include <stdexcept>

namespace synaptic::engine {

std::unique_ptr<Strategy> makeSynapticStrategy();
std::unique_ptr<Strategy> makeParamServerStrategy();
std::unique_ptr<Strategy> makeAllReduceStrategy();
std::unique_ptr<Strategy> makeDiLoCoStrategy();
std::unique_ptr<Strategy> makeGossipStrategy();

std::unique_ptr<Strategy> makeStrategy(const std::string &name) {
    if (name == "synaptic") return makeSynapticStrategy();
    if (name == "param_server") return makeParamServerStrategy();
    if (name == "allreduce") return makeAllReduceStrategy();
    if (name == "diloco") return makeDiLoCoStrategy();
    if (name == "gossip") return makeGossipStrategy();
    throw std::invalid_argument("unknown strategy \"" + name + "\" (synaptic, param_server, allreduce, diloco, gossip)");
}

} // namespace synaptic::engine
