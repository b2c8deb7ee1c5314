#include "sim_world.h"

#include "core/engine/config_error.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/tasks/task_registry.h"

#include <torch/utils.h>

#include <algorithm>
#include <cmath>

namespace synaptic::engine {

void ContributionLedger::recordApplied(int shard, std::uint64_t id) {
    if (appliedIds.size() <= std::size_t(shard))
        appliedIds.resize(std::size_t(shard) + 1);
    if (!appliedIds[std::size_t(shard)].insert(id).second)
        ++duplicates;
    else
        ++applied;
}

void ContributionLedger::fold(const LedgerReport &r) {
    using K = LedgerReport::Kind;
    switch (r.kind) {
    case K::Sent:
        sent += r.count;
        if (!r.ids.empty())
            sentByEdge[contributionEdge(r.ids.front())] += r.count;
        break;
    case K::Applied:
        for (auto id : r.ids)
            recordApplied(r.shard, id);
        break;
    case K::Rejected:
        rejected += r.count;
        rejectedByReason[r.reason.empty() ? "unnamed" : r.reason] += r.count;
        for (auto id : r.ids)
            ++rejectedByEdge[contributionEdge(id)];
        break;
    case K::Forwarded: forwarded += r.count; break;
    case K::LostInCrash: lostInCrash += r.count; break;
    case K::AppliedUnderExpiredLease: appliedUnderExpiredLease += r.count; break;
    case K::SentWhileReadOnly: sentWhileReadOnly += r.count; break;
    case K::RolledBack:
        // The merge is undone: a later application of the same window is its first.
        for (auto id : r.ids)
            if (std::size_t(r.shard) < appliedIds.size() && appliedIds[std::size_t(r.shard)].erase(id) > 0)
                --applied;
        rolledBack += r.count;
        break;
    case K::MergesLost: mergesLost += r.count; break;
    case K::StateWritten: stateWrites += r.count; break;
    case K::CenterResent: centerResent += r.count; break;
    case K::CenterResentMerged: centerResentMerged += r.count; break;
    }
}

std::map<std::string, std::uint64_t> byEdgeName(const std::map<int, std::uint64_t> &counts, const ClusterShape &shape) {
    std::map<std::string, std::uint64_t> named;
    for (const auto &[edge, count] : counts)
        named[shape.edgeName(edge)] += count;
    return named;
}

double SimWorld::computeSeconds(int node, double flops) const {
    const double gflops = node == 0 ? shape->centerGflops : shape->edgeGflops[std::size_t(edgeOfNode(node))];
    // A straggler fault slows its serving as much as its training.
    const double speed = std::size_t(node) < m_contexts.size() && m_contexts[std::size_t(node)]
                             ? m_contexts[std::size_t(node)]->faults.computeSpeed
                             : 1.0;
    return flops / (gflops * 1e9 * speed);
}

double SimWorld::confidenceThreshold(int edge) const {
    const double own = confidenceOverride.at(std::size_t(edge));
    return std::isnan(own) ? config.knobs.confidenceThreshold : own;
}

NodeContext &SimWorld::context(int node) {
    if (m_contexts.empty())
        m_contexts.resize(std::size_t(edgeCount() + 1));
    auto &slot = m_contexts.at(std::size_t(node));
    if (!slot) {
        slot = std::make_unique<NodeContext>();
        slot->node = node;
        slot->config = &config;
        slot->shape = shape;
        slot->model = model;
        slot->stepsPerEdge = stepsPerEdge;
        slot->stateStore = stateStore.get();
        if (const auto f = faults.find(node); f != faults.end())
            slot->faults = f->second;
        if (node > 0) {
            const int edge = edgeOfNode(node);
            slot->owners = model->plan.owner[std::size_t(regionOfEdge(edge))];
            slot->train = train;
            slot->partition = partition[std::size_t(edge)];
        }
    }
    return *slot;
}

PlanTopology topologyOf(const ClusterConfig &config) {
    PlanTopology t;
    // An owner's traffic stays in its region (gradients in, values out), so
    // its capacity is its bandwidth to its region's edges: the region's link,
    // capped by the edge's own last mile.
    for (const auto &r : config.regions) {
        t.edgesPerRegion.push_back(int(r.edges.size()));
        for (const auto &e : r.edges) {
            double bandwidth = config.intraRegion.bandwidthBitsPerSecond;
            if (e.lastMile && e.lastMile->bandwidthBitsPerSecond > 0)
                bandwidth = std::min(bandwidth, e.lastMile->bandwidthBitsPerSecond);
            t.edgeCapacity.push_back(bandwidth);
        }
    }
    return t;
}

std::shared_ptr<const ModelSetup> makeModelSetup(const ClusterConfig &config, const PlanTopology &topology,
                                                 const std::string &device) {
    // Every strategy, simulated or live, builds its model here, from the
    // config's task (issue 16 §1).
    const TaskSpec &task = TaskRegistry::builtIn().find(config.task);
    auto m = std::make_shared<ModelSetup>();
    m->task = task.name;
    m->device = device;
    // The initial model depends on the seed only, so every strategy of a
    // comparison starts from the same weights.
    torch::manual_seed(config.seed);
    auto model = task.makeModel();
    m->layers = layoutOf(model->module()); // the registry checked it against the task's declared layout
    PlanOptions bounds; // the config's bounds: what the plan warns about, and the range targets are kept in
    bounds.minShare = config.planner.minShare;
    bounds.maxShare = config.planner.maxShare;
    m->plan = planShards(m->layers, topology, bounds);
    m->trainFlopsPerSample = task.trainFlopsPerSample;
    FlatModel init(std::move(model), m->plan, m->layers, device);
    m->initialValues = init.values();
    m->initialBuffers = init.buffers();
    return m;
}

std::unique_ptr<SimWorld> makeWorld(const ClusterConfig &config, const TensorSet &train,
                                    const std::vector<std::uint8_t> &trainLabels, const std::string &device) {
    auto w = std::make_unique<SimWorld>();
    w->config = config;
    w->device = device;
    w->train = &train;
    w->shape = std::make_shared<const ClusterShape>(config);
    w->topology = topologyOf(config);
    w->confidenceOverride.assign(std::size_t(w->edgeCount()), std::nan(""));
    w->model = makeModelSetup(config, w->topology, device);
    w->routing = std::make_unique<RoutingTable>(w->model->plan, w->topology);
    w->partition = partitionFor(config, trainLabels);
    return w;
}

data::Partition partitionFor(const ClusterConfig &config, const std::vector<std::uint8_t> &trainLabels) {
    const auto parts = std::size_t(config.edgeCount());
    if (config.partition != "dirichlet")
        return data::partitionIid(trainLabels.size(), parts, config.seed);
    // Over the task's classes (10 for Fashion-MNIST, 12 languages for langid).
    return data::partitionDirichlet(trainLabels, parts, config.dirichletAlpha, config.seed,
                                    TaskRegistry::builtIn().find(config.task).classes);
}

} // namespace synaptic::engine
