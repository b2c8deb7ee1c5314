#include "node_context.h"

#include "lr_schedule.h"

#include "core/engine/tasks/task_registry.h"

#include <algorithm>
#include <stdexcept>

namespace synaptic::engine {

ClusterShape::ClusterShape(const ClusterConfig &config) : centerGflops(config.centerGflops) {
    for (std::size_t r = 0; r < config.regions.size(); ++r) {
        edgesOfRegion.emplace_back();
        for (const auto &e : config.regions[r].edges) {
            edgesOfRegion.back().push_back(int(regionOfEdge.size()));
            regionOfEdge.push_back(int(r));
            edgeNames.push_back(e.name);
            edgeGflops.push_back(e.gflops);
        }
    }
}

const std::string &ClusterShape::edgeName(int edge) const {
    static const std::string unknown = "?";
    return edge >= 0 && edge < edgeCount() ? edgeNames[std::size_t(edge)] : unknown;
}

std::unique_ptr<FlatModel> ModelSetup::newModel() const {
    auto m = std::make_unique<FlatModel>(TaskRegistry::builtIn().find(task).makeModel(), plan, layers, device);
    m->setValues(initialValues);
    m->setBuffers(initialBuffers);
    return m;
}

std::int64_t ModelSetup::shardOffset(int shard) const {
    std::int64_t offset = 0;
    for (int s = 0; s < shard; ++s)
        offset += plan.shards[std::size_t(s)].parameters;
    return offset;
}

int NodeContext::region() const {
    return node == 0 ? -1 : shape->regionOfEdge.at(std::size_t(edge()));
}

double NodeContext::computeSeconds(double flops) const {
    if (realTime)
        return 0;
    const double gflops = node == 0 ? shape->centerGflops : shape->edgeGflops.at(std::size_t(edge()));
    return flops / (gflops * 1e9 * faults.computeSpeed);
}

double NodeContext::trainStepSeconds() const {
    return computeSeconds(model->trainFlopsPerSample * config->batchSize);
}

double NodeContext::windowSeconds(double stepSeconds) const {
    const auto &k = config->knobs;
    return k.aggregationWindowMs > 0 ? k.aggregationWindowMs / 1e3 : k.aggregationWindowSteps * stepSeconds;
}

std::unique_ptr<Replica> NodeContext::newReplica() const {
    if (!train)
        throw std::logic_error("node " + std::to_string(node) + " has no training data");
    return std::make_unique<Replica>(model->newModel(), *train, partition, config->batchSize, model->exitWeight,
                                     config->seed * 1000003ull + std::uint64_t(edge()));
}

ResumedBudget resumeBudget(std::uint64_t total, std::uint64_t done) {
    if (total == 0)
        return {};
    const std::uint64_t before = std::min(total, done);
    return {std::max<std::uint64_t>(1, total - before), before};
}

double NodeContext::learningRate(std::uint64_t stepsDone) const {
    const std::uint64_t budget = stepsPerEdge == 0 ? 0 : stepsDoneBefore + stepsPerEdge;
    return scheduledLearningRate(*config, stepsDoneBefore + stepsDone, budget);
}

} // namespace synaptic::engine
