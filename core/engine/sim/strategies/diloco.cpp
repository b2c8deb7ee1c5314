// Baseline: DiLoCo. Every edge takes H local Adam steps, sends its delta to
// the center (center codec, error feedback when lossy) and waits; the
// center averages the deltas, takes an outer step (Nesterov or plain
// averaging) and sends the new global model back (center codec, as a delta
// from the copy the edge holds when lossy).
#include "diloco_center.h"
#include "common.h"
#include "edge_trainer.h"

#include "core/engine/codec/error_feedback.h"
#include "core/engine/sim/strategy.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <torch/optim/adam.h>

namespace synaptic::engine {

namespace {

class DiLoCoEdge : public SimNode {
public:
    explicit DiLoCoEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_trainer(ctx),
          m_adam(m_trainer.replica().model().module().parameters(), torch::optim::AdamOptions(ctx.config->learningRate)) {
        m_roundStart = m_trainer.model().values();
    }

    void start(double now, Outbox &out) override { m_trainer.train(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_trainer.stepLocalAdam(m_adam);
        ++m_localSteps;
        m_trainer.stepDone(out);
        if (m_localSteps >= m_ctx.config->knobs.dilocoLocalSteps || m_trainer.budgetUsed()) {
            out.send(localDelta(m_trainer.model(), m_roundStart, m_held, m_feedback, m_ctx.config->codecs.center));
            m_waiting = true;
            return;
        }
        m_trainer.train(now, out);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::FullValues || !m_waiting)
            return; // an answer to a delta sent before a restart: this edge started over
        if (!receiveModel(m, m_roundStart, m_held))
            return;
        m_trainer.model().setValues(m_roundStart);
        m_localSteps = 0;
        m_waiting = false;
        m_trainer.train(now, out);
    }

    void onKilled(double, Outbox &) override {
        m_waiting = false;
        m_trainer.killed();
    }
    bool done() const { return m_trainer.budgetUsed() && !m_waiting && !m_trainer.running(); }
    bool finished() const override { return done(); }
    FlatModel *servingModel() override { return &m_trainer.model(); }
    Replica &replica() { return m_trainer.replica(); }

private:
    const NodeContext &m_ctx;
    EdgeTrainer m_trainer;
    torch::optim::Adam m_adam;
    ErrorFeedback m_feedback;
    at::Tensor m_roundStart;  // the global model as last received
    std::uint64_t m_held = 0; // its version
    int m_localSteps = 0;
    bool m_waiting = false; // delta sent, global model not back yet
};

} // namespace

std::unique_ptr<Strategy> makeDiLoCoStrategy() {
    return std::make_unique<CenteredStrategy<DiLoCoCenter, DiLoCoEdge>>();
}

std::unique_ptr<SimNode> makeDiLoCoNode(const NodeContext &ctx) {
    return CenteredStrategy<DiLoCoCenter, DiLoCoEdge>::makeNode(ctx);
}

} // namespace synaptic::engine
