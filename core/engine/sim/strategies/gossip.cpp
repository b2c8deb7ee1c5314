// Baseline: gossip averaging. Every edge trains with local Adam and, every
// round of G steps, sends its model to one neighbour drawn at random: from
// its own region with probability knobs.gossip_same_region, else from any
// other edge (so some rounds cross the WAN); a receiver averages the model
// it got with its own at its next step boundary. No center, no waiting.
// Models travel with the values codec (whole, no error feedback: each is
// averaged once).
#include "common.h"
#include "edge_trainer.h"

#include "core/engine/sim/strategy.h"

#include <torch/optim/adam.h>

#include <random>

namespace synaptic::engine {

namespace {

class GossipEdge : public SimNode {
public:
    explicit GossipEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_edge(ctx.edge()), m_trainer(ctx),
          m_adam(m_trainer.model().module().parameters(), torch::optim::AdamOptions(ctx.config->learningRate)),
          m_rng(ctx.config->seed * 7777ull + std::uint64_t(m_edge)) {}

    void start(double now, Outbox &out) override { m_trainer.train(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_trainer.stepLocalAdam(m_adam);
        m_trainer.stepDone(out);
        auto &model = m_trainer.model();
        for (const auto &m : m_received) {
            model.setValues((model.values() + m.tensor).mul_(0.5));
            model.setBuffers((model.buffers() + m.buffers).mul_(0.5));
        }
        m_received.clear();
        const bool round = m_trainer.steps() % std::uint64_t(m_ctx.config->knobs.gossipSteps) == 0;
        if (const int peer = round ? pickPeer() : -1; peer >= 0) {
            Message g;
            g.kind = MessageKind::GossipParams;
            g.to = ClusterShape::nodeOfEdge(peer);
            setCoded(g.tensor, g.tensorCoding, encode(model.values(), m_ctx.config->codecs.values));
            setBatchNormStats(g, model.buffers(), m_ctx.config->codecs.values);
            out.send(std::move(g));
        }
        m_trainer.train(now, out);
    }

    void onMessage(double, Message &&m, Outbox &) override {
        if (m.kind == MessageKind::GossipParams)
            m_received.push_back(std::move(m));
    }

    bool done() const { return m_trainer.budgetUsed() && !m_trainer.running(); }
    Replica &replica() { return m_trainer.replica(); }

private:
    // A neighbour from this edge's region with probability gossip_same_region
    // (when it has one), else from all other edges; -1 when there is none.
    int pickPeer() {
        const auto &shape = *m_ctx.shape;
        std::vector<int> local;
        for (int e : shape.edgesOfRegion[std::size_t(m_ctx.region())])
            if (e != m_edge)
                local.push_back(e);
        const double draw = double(m_rng() % 1'000'000) / 1e6;
        if (!local.empty() && draw < m_ctx.config->knobs.gossipSameRegion)
            return local[std::size_t(m_rng() % local.size())];
        const int edges = shape.edgeCount();
        if (edges < 2)
            return -1;
        int peer = int(m_rng() % std::uint64_t(edges - 1));
        return peer >= m_edge ? peer + 1 : peer;
    }

    const NodeContext &m_ctx;
    int m_edge;
    EdgeTrainer m_trainer;
    torch::optim::Adam m_adam;
    std::mt19937_64 m_rng;
    std::vector<Message> m_received;
};

class GossipStrategy : public Strategy {
public:
    std::vector<std::unique_ptr<SimNode>> createNodes(SimWorld &world) override {
        m_world = &world;
        std::vector<std::unique_ptr<SimNode>> nodes;
        nodes.push_back(nullptr); // no center
        m_edges.create(world, nodes);
        return nodes;
    }
    // Gossip has no global copy: the harness evaluates the edges' average
    // (what the edges converge to), computed here, not sent anywhere.
    void globalModel(FlatModel &into) override {
        at::Tensor sum;
        for (auto *r : m_edges.replicas)
            sum = sum.defined() ? sum.add_(r->model().values()) : r->model().values();
        into.setValues(sum.div_(double(m_edges.replicas.size())));
        into.setBuffers(meanBuffers(m_edges.replicas));
    }
    bool finished() const override {
        return m_edges.allDone(*m_world);
    }
    std::vector<Replica *> replicas() const override { return m_edges.replicas; }

private:
    SimWorld *m_world = nullptr;
    EdgeNodes<GossipEdge> m_edges;
};

} // namespace

std::unique_ptr<Strategy> makeGossipStrategy() { return std::make_unique<GossipStrategy>(); }

} // namespace synaptic::engine
