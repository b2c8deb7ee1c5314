// Baseline: synchronous ring all-reduce across every edge over the links
// between them (WAN links where the ring crosses regions). Each step is a
// reduce-scatter and an all-gather of 2(E-1) phases, every phase one chunk
// of 1/E of the gradient per edge; then every edge applies the same Adam step.
#include "common.h"

#include "core/engine/sim/strategy.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <map>

namespace synaptic::engine {

namespace {

class RingEdge : public SimNode {
public:
    explicit RingEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_edge(ctx.edge()), m_ring(ctx.shape->edgeCount()),
          m_replica(ctx.newReplica()) {}

    void start(double now, Outbox &out) override { train(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_now = now;
        m_running = false;
        auto &model = m_replica->model();
        m_vec = at::cat({model.gradients(), model.buffers()});
        m_phase = 0;
        m_inRing = true;
        out.report(StepReport{std::uint64_t(m_replica->batchSize())});
        sendPhase(out);
        advance(out);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::RingChunk)
            return;
        m_now = now;
        m_inbox[m.round] = std::move(m);
        advance(out);
    }

    bool done() const {
        return m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge && !m_inRing && !m_running;
    }
    Replica &replica() { return *m_replica; }

private:
    int phases() const { return 2 * (m_ring - 1); }
    std::uint64_t key(int phase) const { return m_replica->steps() * 1000 + std::uint64_t(phase); }
    std::pair<std::int64_t, std::int64_t> chunk(int c) const {
        const std::int64_t n = m_vec.numel();
        return {n * c / m_ring, n * (c + 1) / m_ring};
    }
    int mod(int x) const { return ((x % m_ring) + m_ring) % m_ring; }

    void sendPhase(Outbox &out) {
        const int p = m_phase;
        const int c = p < m_ring - 1 ? mod(m_edge - p) : mod(m_edge + 1 - (p - (m_ring - 1)));
        const auto [b, e] = chunk(c);
        Message m;
        m.kind = MessageKind::RingChunk;
        m.to = ClusterShape::nodeOfEdge(mod(m_edge + 1));
        m.round = key(p);
        m.chunk = c;
        m.tensor = m_vec.slice(0, b, e).clone();
        out.send(std::move(m));
    }

    void advance(Outbox &out) {
        while (m_inRing) {
            auto it = m_inbox.find(key(m_phase));
            if (it == m_inbox.end())
                return;
            const auto [b, e] = chunk(it->second.chunk);
            auto slice = m_vec.slice(0, b, e);
            if (m_phase < m_ring - 1)
                slice.add_(it->second.tensor);
            else
                slice.copy_(it->second.tensor);
            m_inbox.erase(it);
            if (++m_phase < phases()) {
                sendPhase(out);
                continue;
            }
            finishStep(out);
        }
    }

    void finishStep(Outbox &out) {
        m_inRing = false;
        auto &model = m_replica->model();
        m_vec.div_(double(m_ring));
        const std::int64_t p = model.size();
        auto values = model.values();
        AdamOptions adam;
        adam.lr = m_ctx.config->learningRate;
        adamStep(values, m_vec.slice(0, 0, p), m_adam, adam);
        model.setValues(values);
        model.setBuffers(m_vec.slice(0, p));
        train(m_now, out);
    }

    void train(double now, Outbox &out) {
        if (m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge)
            return;
        m_replica->trainStep();
        m_running = true;
        out.timer(now + m_ctx.trainStepSeconds(), 0);
    }

    const NodeContext &m_ctx;
    int m_edge;
    int m_ring;
    std::unique_ptr<Replica> m_replica;
    AdamState m_adam;
    at::Tensor m_vec;
    int m_phase = 0;
    bool m_inRing = false;
    bool m_running = false;
    double m_now = 0;
    std::map<std::uint64_t, Message> m_inbox;
};

class AllReduceStrategy : public Strategy {
public:
    std::vector<std::unique_ptr<SimNode>> createNodes(SimWorld &world) override {
        m_world = &world;
        std::vector<std::unique_ptr<SimNode>> nodes;
        nodes.push_back(nullptr); // no center in this strategy
        m_edges.create(world, nodes);
        return nodes;
    }
    void globalModel(FlatModel &into) override {
        // Every replica is identical after a step; edge 0 speaks for all.
        into.setValues(m_edges.replicas[0]->model().values());
        into.setBuffers(m_edges.replicas[0]->model().buffers());
    }
    bool finished() const override {
        return m_edges.allDone(*m_world);
    }
    std::vector<Replica *> replicas() const override { return m_edges.replicas; }

private:
    SimWorld *m_world = nullptr;
    EdgeNodes<RingEdge> m_edges;
};

} // namespace

std::unique_ptr<Strategy> makeAllReduceStrategy() { return std::make_unique<AllReduceStrategy>(); }

} // namespace synaptic::engine
