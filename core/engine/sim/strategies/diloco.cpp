// Baseline: DiLoCo. Every edge takes H local Adam steps, sends its delta to
// the center and waits; the center averages the deltas, takes a Nesterov
// outer step and sends the new global model back.
#include "common.h"

#include "core/engine/sim/strategy.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <torch/optim/adam.h>

namespace synaptic::engine {

namespace {

constexpr double kStragglerSeconds = 10.0;

class DiLoCoEdge : public SimNode {
public:
    explicit DiLoCoEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_replica(ctx.newReplica()),
          m_adam(m_replica->model().net()->parameters(), torch::optim::AdamOptions(ctx.config->learningRate)) {
        m_roundStart = m_replica->model().values();
    }

    void start(double now, Outbox &out) override { step(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_running = false;
        m_adam.step();
        ++m_localSteps;
        out.report(StepReport{std::uint64_t(m_replica->batchSize())});
        if (m_localSteps >= m_ctx.config->knobs.dilocoLocalSteps || budgetUsed()) {
            Message d;
            d.kind = MessageKind::LocalDelta;
            d.to = kCenterNode;
            d.tensor = m_replica->model().values() - m_roundStart;
            d.buffers = m_replica->model().buffers();
            out.send(std::move(d));
            m_waiting = true;
            return;
        }
        step(now, out);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::FullValues || !m_waiting)
            return; // an answer to a delta sent before a restart: this edge started over
        m_replica->model().setValues(m.tensor);
        m_roundStart = m.tensor.clone();
        m_localSteps = 0;
        m_waiting = false;
        step(now, out);
    }

    void onKilled(double, Outbox &) override { m_waiting = m_running = false; }
    bool done() const { return budgetUsed() && !m_waiting && !m_running; }
    bool finished() const override { return done(); }
    FlatModel *servingModel() override { return &m_replica->model(); }
    Replica &replica() { return *m_replica; }

private:
    bool budgetUsed() const { return m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge; }
    void step(double now, Outbox &out) {
        if (budgetUsed())
            return;
        m_replica->trainStep();
        m_running = true;
        out.timer(now + m_ctx.trainStepSeconds(), 0);
    }

    const NodeContext &m_ctx;
    std::unique_ptr<Replica> m_replica;
    torch::optim::Adam m_adam;
    at::Tensor m_roundStart;
    int m_localSteps = 0;
    bool m_waiting = false; // delta sent, global model not back yet
    bool m_running = false; // a step's compute is in progress
};

class DiLoCoCenter : public SimNode {
public:
    explicit DiLoCoCenter(const NodeContext &ctx)
        : SimNode(kCenterNode), m_ctx(ctx),
          m_outer(ctx.config->knobs.outerOptimizer, ctx.config->knobs.outerLearningRate,
                  ctx.config->knobs.outerMomentum) {
        m_global = ctx.model->initialValues.clone();
        m_buffers = ctx.model->initialBuffers.clone();
    }
    void start(double now, Outbox &out) override {
        if (!m_from.empty()) // restarted with deltas on hand: their straggler timer died with the process
            out.timer(now + kStragglerSeconds, 0, m_round);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::LocalDelta)
            return;
        if (m_from.empty())
            out.timer(now + kStragglerSeconds, 0, m_round);
        m_sum = m_sum.defined() ? m_sum.add_(m.tensor) : m.tensor.clone();
        m_bufferSum = m_bufferSum.defined() ? m_bufferSum.add_(m.buffers) : m.buffers.clone();
        m_from.push_back(m.from);
        if (int(m_from.size()) == m_ctx.shape->edgeCount())
            outerStep(out);
    }
    void onTimer(double, int, std::uint64_t round, Outbox &out) override {
        if (round == m_round && !m_from.empty())
            outerStep(out);
    }

    at::Tensor values() const { return m_global; }
    at::Tensor buffers() const { return m_buffers; }
    bool idle() const { return m_from.empty(); }
    bool finished() const override { return idle(); }
    bool evaluationModel(at::Tensor &values, at::Tensor &buffers) const override {
        values = m_global.clone();
        buffers = m_buffers.clone();
        return true;
    }

private:
    void outerStep(Outbox &out) {
        const auto &k = m_ctx.config->knobs;
        m_outer.setParameters(k.outerOptimizer, k.outerLearningRate, k.outerMomentum);
        m_outer.step(m_global, m_sum.div_(double(m_from.size())), m_momentum);
        m_buffers = m_bufferSum.div_(double(m_from.size()));
        for (int node : m_from) {
            Message v;
            v.kind = MessageKind::FullValues;
            v.to = node;
            v.tensor = m_global.clone();
            out.send(std::move(v));
        }
        m_sum = m_bufferSum = at::Tensor();
        m_from.clear();
        ++m_round;
    }

    const NodeContext &m_ctx;
    OuterOptimizer m_outer;
    at::Tensor m_global, m_momentum, m_buffers, m_sum, m_bufferSum;
    std::vector<int> m_from;
    std::uint64_t m_round = 0;
};

} // namespace

std::unique_ptr<Strategy> makeDiLoCoStrategy() {
    return std::make_unique<CenteredStrategy<DiLoCoCenter, DiLoCoEdge>>();
}

std::unique_ptr<SimNode> makeDiLoCoNode(const NodeContext &ctx) {
    return CenteredStrategy<DiLoCoCenter, DiLoCoEdge>::makeNode(ctx);
}

} // namespace synaptic::engine
