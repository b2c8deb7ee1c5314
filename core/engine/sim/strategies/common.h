#pragma once

#include "core/engine/codec/error_feedback.h"
#include "core/engine/sim/replica.h"

#include <ATen/ATen.h>

#include "core/engine/sim/sim_node.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/strategy.h"

#include <cmath>
#include <memory>
#include <vector>

namespace synaptic::engine {

// Helpers the strategies share.

// Mean of the replicas' batch-norm statistics: what the harness gives a
// merged model to evaluate with (no strategy ships them as parameters).
template <typename Replicas>
at::Tensor meanBuffers(const Replicas &replicas) {
    at::Tensor sum;
    for (Replica *r : replicas)
        sum = sum.defined() ? sum.add_(r->model().buffers()) : r->model().buffers();
    return sum.div_(double(replicas.size()));
}

// A strategy's edges: one node of type Edge per configured edge, appended
// to `nodes` (node id = edge index + 1), each built from its own context,
// with typed pointers kept for the harness (models, replicas, done()).
template <typename Edge>
struct EdgeNodes {
    std::vector<Edge *> edges;
    std::vector<Replica *> replicas;

    void create(SimWorld &world, std::vector<std::unique_ptr<SimNode>> &nodes) {
        for (int e = 0; e < world.edgeCount(); ++e) {
            auto edge = std::make_unique<Edge>(world.context(SimWorld::nodeOfEdge(e)));
            edges.push_back(edge.get());
            replicas.push_back(&edge->replica());
            nodes.push_back(std::move(edge));
        }
    }
    // Every edge still alive has used its step budget (a dead edge trains no more).
    bool allDone(const SimWorld &world) const {
        for (auto *e : edges)
            if (!e->done() && world.alive[std::size_t(e->id())])
                return false;
        return world.stepsPerEdge > 0;
    }
};

// A strategy whose global model lives at a center that answers every edge
// (param_server, diloco): Center must offer values(), buffers() and idle().
template <typename Center, typename Edge>
class CenteredStrategy : public Strategy {
public:
    std::vector<std::unique_ptr<SimNode>> createNodes(SimWorld &world) override {
        m_world = &world;
        std::vector<std::unique_ptr<SimNode>> nodes;
        auto center = std::make_unique<Center>(world.context(kCenterNode));
        m_center = center.get();
        nodes.push_back(std::move(center));
        m_edges.create(world, nodes);
        return nodes;
    }
    void globalModel(FlatModel &into) override {
        into.setValues(m_center->values());
        into.setBuffers(m_center->buffers());
    }
    // What a live process runs: one node of this strategy.
    static std::unique_ptr<SimNode> makeNode(const NodeContext &ctx) {
        if (ctx.node == kCenterNode)
            return std::make_unique<Center>(ctx);
        return std::make_unique<Edge>(ctx);
    }
    bool finished() const override { return m_edges.allDone(*m_world) && m_center->idle(); }
    std::vector<Replica *> replicas() const override { return m_edges.replicas; }

private:
    SimWorld *m_world = nullptr;
    Center *m_center = nullptr;
    EdgeNodes<Edge> m_edges;
};

// A strategy without a center whose edges all end every step with the same
// model (allreduce, hier_allreduce): edge 0 speaks for all.
template <typename Edge>
class SynchronousEdgesStrategy : public Strategy {
public:
    std::vector<std::unique_ptr<SimNode>> createNodes(SimWorld &world) override {
        m_world = &world;
        std::vector<std::unique_ptr<SimNode>> nodes;
        nodes.push_back(nullptr); // no center in this strategy
        m_edges.create(world, nodes);
        return nodes;
    }
    void globalModel(FlatModel &into) override {
        into.setValues(m_edges.replicas[0]->model().values());
        into.setBuffers(m_edges.replicas[0]->model().buffers());
    }
    bool finished() const override { return m_edges.allDone(*m_world); }
    std::vector<Replica *> replicas() const override { return m_edges.replicas; }

private:
    SimWorld *m_world = nullptr;
    EdgeNodes<Edge> m_edges;
};

// DiLoCo's message to the center (diloco, hier_diloco): the model's change
// since the round started, through the center codec with error feedback,
// and the batch-norm statistics at that codec's width (statisticsCodec).
inline Message localDelta(FlatModel &model, const at::Tensor &roundStart, std::uint64_t held, ErrorFeedback &feedback,
                          const CodecSpec &codec) {
    Message d;
    d.kind = MessageKind::LocalDelta;
    d.to = kCenterNode;
    d.copyVersion = held;
    setCoded(d.tensor, d.tensorCoding, feedback.compress(model.values() - roundStart, codec));
    setBatchNormStats(d, model.buffers(), codec);
    return d;
}

} // namespace synaptic::engine
