// Baseline: synchronous ring all-reduce across every edge over the links
// between them (WAN links where the ring crosses regions). Each step is a
// reduce-scatter and an all-gather of 2(E-1) phases (RingReduce); then
// every edge applies the same Adam step. Chunks use the gradients codec.
#include "common.h"
#include "edge_trainer.h"
#include "ring_reduce.h"

#include "core/engine/sim/strategy.h"
#include "core/engine/synapse/shard_optimizer.h"

namespace synaptic::engine {

namespace {

std::vector<int> allEdgeNodes(const ClusterShape &shape) {
    std::vector<int> nodes;
    for (int e = 0; e < shape.edgeCount(); ++e)
        nodes.push_back(ClusterShape::nodeOfEdge(e));
    return nodes;
}

class RingEdge : public SimNode {
public:
    explicit RingEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_trainer(ctx), m_ring(0, allEdgeNodes(*ctx.shape), ctx.node) {}

    void start(double now, Outbox &out) override { m_trainer.train(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_now = now;
        m_trainer.stepDone(out);
        m_inRing = true;
        if (m_ring.start(m_trainer.steps(), m_trainer.gradientsAndBuffers(), m_trainer.model().size(),
                         m_ctx.config->codecs.gradients, out))
            finishStep(out);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::RingChunk)
            return;
        m_now = now;
        if (m_ring.onChunk(std::move(m), out))
            finishStep(out);
    }

    bool done() const { return m_trainer.budgetUsed() && !m_inRing && !m_trainer.running(); }
    Replica &replica() { return m_trainer.replica(); }

private:
    void finishStep(Outbox &out) {
        m_inRing = false;
        m_trainer.applyMeanGradient(m_ring.result(), double(m_ring.size()));
        m_trainer.train(m_now, out);
    }

    const NodeContext &m_ctx;
    EdgeTrainer m_trainer;
    RingReduce m_ring;
    bool m_inRing = false;
    double m_now = 0;
};

} // namespace

std::unique_ptr<Strategy> makeAllReduceStrategy() { return std::make_unique<SynchronousEdgesStrategy<RingEdge>>(); }

} // namespace synaptic::engine
