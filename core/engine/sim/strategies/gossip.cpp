// Baseline: gossip averaging. Every edge trains with local Adam and, every
// round of G steps, sends its model to one neighbour drawn at random (any
// other edge, so some rounds cross the WAN); a receiver averages the model
// it got with its own at its next step boundary. No center, no waiting.
#include "common.h"

#include "core/engine/sim/strategy.h"

#include <torch/optim/adam.h>

#include <random>

namespace synaptic::engine {

namespace {

class GossipEdge : public SimNode {
public:
    explicit GossipEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_edge(ctx.edge()), m_replica(ctx.newReplica()),
          m_adam(m_replica->model().net()->parameters(), torch::optim::AdamOptions(ctx.config->learningRate)),
          m_rng(ctx.config->seed * 7777ull + std::uint64_t(m_edge)) {}

    void start(double now, Outbox &out) override { step(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_adam.step();
        out.report(StepReport{std::uint64_t(m_replica->batchSize())});
        auto &model = m_replica->model();
        for (const auto &m : m_received) {
            model.setValues((model.values() + m.tensor).mul_(0.5));
            model.setBuffers((model.buffers() + m.buffers).mul_(0.5));
        }
        m_received.clear();
        const int edges = m_ctx.shape->edgeCount();
        if (m_replica->steps() % std::uint64_t(m_ctx.config->knobs.gossipSteps) == 0 && edges > 1) {
            int peer = int(m_rng() % std::uint64_t(edges - 1));
            if (peer >= m_edge)
                ++peer;
            Message g;
            g.kind = MessageKind::GossipParams;
            g.to = ClusterShape::nodeOfEdge(peer);
            g.tensor = model.values();
            g.buffers = model.buffers();
            out.send(std::move(g));
        }
        step(now, out);
    }

    void onMessage(double, Message &&m, Outbox &) override {
        if (m.kind == MessageKind::GossipParams)
            m_received.push_back(std::move(m));
    }

    bool done() const { return m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge && !m_running; }
    Replica &replica() { return *m_replica; }

private:
    void step(double now, Outbox &out) {
        m_running = false;
        if (m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge)
            return;
        m_replica->trainStep();
        m_running = true;
        out.timer(now + m_ctx.trainStepSeconds(), 0);
    }

    const NodeContext &m_ctx;
    int m_edge;
    std::unique_ptr<Replica> m_replica;
    torch::optim::Adam m_adam;
    std::mt19937_64 m_rng;
    std::vector<Message> m_received;
    bool m_running = false;
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
