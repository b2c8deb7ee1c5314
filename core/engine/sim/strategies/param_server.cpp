// Baseline: a synchronous parameter server at the center. Every step every
// edge sends its whole gradient to the center and waits for the new weights.
#include "common.h"

#include "core/engine/sim/strategy.h"
#include "core/engine/synapse/shard_optimizer.h"

namespace synaptic::engine {

namespace {

// A server waits this long past the first gradient of a step for the rest;
// then it steps with what arrived, so a dead edge cannot stall the cluster.
constexpr double kStragglerSeconds = 10.0;

class PsEdge : public SimNode {
public:
    explicit PsEdge(const NodeContext &ctx) : SimNode(ctx.node), m_ctx(ctx), m_replica(ctx.newReplica()) {}

    void start(double now, Outbox &out) override { step(now, out); }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::FullValues || !m_waiting)
            return; // an answer to a gradient sent before a restart: this edge started over
        m_replica->model().setValues(m.tensor);
        m_waiting = false;
        step(now, out);
    }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        Message g;
        g.kind = MessageKind::FullGradient;
        g.to = kCenterNode;
        g.round = m_replica->steps();
        g.tensor = m_replica->model().gradients();
        g.buffers = m_replica->model().buffers();
        out.send(std::move(g));
        out.report(StepReport{std::uint64_t(m_replica->batchSize())});
        m_waiting = true;
        m_running = false;
        (void)now;
    }

    void onKilled(double, Outbox &) override { m_waiting = m_running = false; }

    bool finished() const override { return done(); }
    FlatModel *servingModel() override { return &m_replica->model(); }
    bool done() const {
        return m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge && !m_waiting && !m_running;
    }
    Replica &replica() { return *m_replica; }

private:
    void step(double now, Outbox &out) {
        if (m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge)
            return;
        m_replica->trainStep();
        m_running = true;
        out.timer(now + m_ctx.trainStepSeconds(), 0);
    }

    const NodeContext &m_ctx;
    std::unique_ptr<Replica> m_replica;
    bool m_waiting = false; // gradient sent, new weights not back yet
    bool m_running = false; // a step's compute is in progress
};

class PsCenter : public SimNode {
public:
    explicit PsCenter(const NodeContext &ctx) : SimNode(kCenterNode), m_ctx(ctx) {
        m_values = ctx.model->initialValues.clone();
        m_buffers = ctx.model->initialBuffers.clone();
    }

    void start(double now, Outbox &out) override {
        if (m_count > 0) // restarted with gradients on hand: their straggler timer died with the process
            out.timer(now + kStragglerSeconds, 0, m_round);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        if (m.kind != MessageKind::FullGradient)
            return;
        if (m_count == 0)
            out.timer(now + kStragglerSeconds, 0, m_round);
        m_sum = m_sum.defined() ? m_sum.add_(m.tensor) : m.tensor.clone();
        m_bufferSum = m_bufferSum.defined() ? m_bufferSum.add_(m.buffers) : m.buffers.clone();
        m_from.push_back(m.from);
        if (++m_count == m_ctx.shape->edgeCount())
            apply(out);
    }

    void onTimer(double, int, std::uint64_t round, Outbox &out) override {
        if (round == m_round && m_count > 0)
            apply(out);
    }

    at::Tensor values() const { return m_values; }
    at::Tensor buffers() const { return m_buffers; }
    bool idle() const { return m_count == 0; }
    bool finished() const override { return idle(); }
    bool evaluationModel(at::Tensor &values, at::Tensor &buffers) const override {
        values = m_values.clone();
        buffers = m_buffers.clone();
        return true;
    }

private:
    void apply(Outbox &out) {
        AdamOptions adam;
        adam.lr = m_ctx.config->learningRate;
        adamStep(m_values, m_sum.div_(double(m_count)), m_state, adam);
        m_buffers = m_bufferSum.div_(double(m_count));
        for (int node : m_from) {
            Message v;
            v.kind = MessageKind::FullValues;
            v.to = node;
            v.tensor = m_values.clone();
            out.send(std::move(v));
        }
        m_sum = at::Tensor();
        m_bufferSum = at::Tensor();
        m_from.clear();
        m_count = 0;
        ++m_round;
    }

    const NodeContext &m_ctx;
    at::Tensor m_values, m_buffers, m_sum, m_bufferSum;
    AdamState m_state;
    std::vector<int> m_from;
    int m_count = 0;
    std::uint64_t m_round = 0;
};

} // namespace

std::unique_ptr<Strategy> makeParamServerStrategy() {
    return std::make_unique<CenteredStrategy<PsCenter, PsEdge>>();
}

std::unique_ptr<SimNode> makeParamServerNode(const NodeContext &ctx) {
    return CenteredStrategy<PsCenter, PsEdge>::makeNode(ctx);
}

} // namespace synaptic::engine
