#include "sim_world.h"

#include <cmath>

#include "core/engine/synapse/model_layout.h"

#include <torch/utils.h>

namespace synaptic::engine {

void ContributionLedger::recordApplied(int shard, std::uint64_t id) {
    if (appliedIds.size() <= std::size_t(shard))
        appliedIds.resize(std::size_t(shard) + 1);
    if (!appliedIds[std::size_t(shard)].insert(id).second)
        ++duplicates;
    else
        ++applied;
}

const std::string &SimWorld::edgeName(int edge) const {
    int i = 0;
    for (const auto &r : config.regions)
        for (const auto &e : r.edges)
            if (i++ == edge)
                return e.name;
    static const std::string unknown = "?";
    return unknown;
}

double SimWorld::edgeGflops(int edge) const {
    int i = 0;
    for (const auto &r : config.regions)
        for (const auto &e : r.edges)
            if (i++ == edge)
                return e.gflops;
    return 1;
}

double SimWorld::computeSeconds(int node, double flops) const {
    const double gflops = node == 0 ? config.centerGflops : edgeGflops(edgeOfNode(node));
    return flops / (gflops * 1e9);
}

double SimWorld::trainStepSeconds(int edge) const {
    return computeSeconds(nodeOfEdge(edge), trainFlopsPerSample * config.batchSize);
}

double SimWorld::confidenceThreshold(int edge) const {
    const double own = confidenceOverride.at(std::size_t(edge));
    return std::isnan(own) ? config.knobs.confidenceThreshold : own;
}

double windowSeconds(const SimWorld &world, int edge) {
    const auto &k = world.config.knobs;
    return k.aggregationWindowMs > 0 ? k.aggregationWindowMs / 1e3
                                     : k.aggregationWindowSteps * world.trainStepSeconds(edge);
}

std::unique_ptr<FlatModel> SimWorld::newModel() const {
    auto m = std::make_unique<FlatModel>(plan, layers, device);
    m->setValues(initialValues);
    m->setBuffers(initialBuffers);
    return m;
}

std::unique_ptr<Replica> SimWorld::newReplica(int edge) const {
    return std::make_unique<Replica>(newModel(), *train, partition[std::size_t(edge)], config.batchSize, exitWeight,
                                     config.seed * 1000003ull + std::uint64_t(edge));
}

std::unique_ptr<SimWorld> makeWorld(const ClusterConfig &config, const TensorSet &train,
                                    const std::vector<std::uint8_t> &trainLabels, const std::string &device) {
    auto w = std::make_unique<SimWorld>();
    w->config = config;
    w->device = device;
    w->train = &train;
    for (std::size_t r = 0; r < config.regions.size(); ++r) {
        w->topology.edgesPerRegion.push_back(int(config.regions[r].edges.size()));
        w->edgesOfRegion.emplace_back();
        for (std::size_t e = 0; e < config.regions[r].edges.size(); ++e) {
            w->edgesOfRegion.back().push_back(int(w->regionOfEdge.size()));
            w->regionOfEdge.push_back(int(r));
        }
    }
    w->confidenceOverride.assign(w->regionOfEdge.size(), std::nan(""));
    // The initial model depends on the seed only, so every strategy of a
    // comparison starts from the same weights.
    torch::manual_seed(config.seed);
    SynapticNet probe;
    w->layers = layoutOf(*probe);
    w->plan = planShards(w->layers, w->topology);
    w->routing = std::make_unique<RoutingTable>(w->plan, w->topology);
    w->trainFlopsPerSample = 6.0 * double(SynapticNetImpl::forwardMacsPerSample());
    {
        torch::manual_seed(config.seed);
        FlatModel init(w->plan, w->layers, device);
        w->initialValues = init.values();
        w->initialBuffers = init.buffers();
    }
    const std::size_t parts = std::size_t(w->edgeCount());
    w->partition = config.partition == "dirichlet"
                       ? data::partitionDirichlet(trainLabels, parts, config.dirichletAlpha, config.seed)
                       : data::partitionIid(trainLabels.size(), parts, config.seed);
    return w;
}

} // namespace synaptic::engine
