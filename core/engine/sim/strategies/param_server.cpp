// Baseline: a synchronous parameter server at the center. Every step every
// edge sends its whole gradient to the center (gradients codec, with error
// feedback when lossy) and waits for the new weights (values codec, as a
// delta from the copy the edge holds when lossy).
#include "collecting_center.h"
#include "common.h"
#include "edge_trainer.h"

#include "core/engine/codec/error_feedback.h"
#include "core/engine/sim/strategy.h"
#include "core/engine/synapse/shard_optimizer.h"

namespace synaptic::engine {

namespace {

class PsEdge : public SimNode {
public:
    explicit PsEdge(const NodeContext &ctx) : SimNode(ctx.node), m_ctx(ctx), m_trainer(ctx) {
        m_copy = m_trainer.model().values();
    }

    void start(double now, Outbox &out) override { m_trainer.train(now, out); }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::FullValues || !m_waiting)
            return; // an answer to a gradient sent before a restart: this edge started over
        if (!receiveModel(m, m_copy, m_held))
            return; // a delta from a copy this edge does not hold: never sent to a live edge
        m_trainer.model().setValues(m_copy);
        m_waiting = false;
        m_trainer.train(now, out);
    }

    void onTimer(double, int, std::uint64_t, Outbox &out) override {
        Message g;
        g.kind = MessageKind::FullGradient;
        g.to = kCenterNode;
        g.round = m_trainer.steps();
        g.copyVersion = m_held;
        setCoded(g.tensor, g.tensorCoding,
                 m_feedback.compress(m_trainer.model().gradients(), m_ctx.config->codecs.gradients));
        setBatchNormStats(g, m_trainer.model().buffers(), m_ctx.config->codecs.gradients);
        out.send(std::move(g));
        m_trainer.stepDone(out);
        m_waiting = true;
    }

    void onKilled(double, Outbox &) override {
        m_waiting = false;
        m_trainer.killed();
    }

    bool finished() const override { return done(); }
    FlatModel *servingModel() override { return &m_trainer.model(); }
    bool done() const { return m_trainer.budgetUsed() && !m_waiting && !m_trainer.running(); }
    Replica &replica() { return m_trainer.replica(); }

private:
    const NodeContext &m_ctx;
    EdgeTrainer m_trainer;
    ErrorFeedback m_feedback;
    at::Tensor m_copy;        // the center's model as last received
    std::uint64_t m_held = 0; // its version
    bool m_waiting = false;   // gradient sent, new weights not back yet
};

class PsCenter : public CollectingCenter {
public:
    explicit PsCenter(const NodeContext &ctx)
        : CollectingCenter(ctx, MessageKind::FullGradient, ctx.shape->edgeCount(), &CodecKnobs::values) {}

protected:
    void update(at::Tensor &values, const at::Tensor &mean) override {
        AdamOptions adam;
        // Round r applies every edge's r-th step. (A restarted live center
        // starts over at round 1, its model with it.)
        adam.lr = m_ctx.learningRate(roundsDone() + 1);
        adamStep(values, mean, m_state, adam);
    }
    double updateFlopsPerParameter() const override { return kAdamFlopsPerParameter; }

private:
    AdamState m_state;
};

} // namespace

std::unique_ptr<Strategy> makeParamServerStrategy() {
    return std::make_unique<CenteredStrategy<PsCenter, PsEdge>>();
}

std::unique_ptr<SimNode> makeParamServerNode(const NodeContext &ctx) {
    return CenteredStrategy<PsCenter, PsEdge>::makeNode(ctx);
}

} // namespace synaptic::engine
