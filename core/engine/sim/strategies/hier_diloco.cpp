// Baseline: hierarchical DiLoCo (issue 14), the closest competitor to
// synaptic. Inside each region the edges train synchronously (a ring
// all-reduce of every step's gradient over the LAN, gradients codec, the
// same Adam step everywhere); every H steps the region's leader sends the
// region's delta to the center (center codec, error feedback when lossy),
// the center takes the outer step once every region reported and answers
// each leader (center codec, a delta from the leader's copy when lossy),
// and the leader passes the new global model to its region (whole fp32).
#include "common.h"
#include "diloco_center.h"
#include "edge_trainer.h"
#include "model_copies.h"
#include "region_rings.h"
#include "ring_reduce.h"

#include "core/engine/codec/error_feedback.h"
#include "core/engine/sim/strategy.h"

#include <optional>

namespace synaptic::engine {

namespace {

class HierDiLoCoEdge : public SimNode {
public:
    explicit HierDiLoCoEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_trainer(ctx), m_members(regionNodes(*ctx.shape, ctx.region())),
          m_ring(0, m_members, ctx.node), m_leader(m_members.front()) {
        m_roundStart = m_trainer.model().values();
    }

    void start(double now, Outbox &out) override { m_trainer.train(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_now = now;
        m_trainer.stepDone(out);
        m_inStep = true;
        if (m_ring.start(m_trainer.steps(), m_trainer.gradientsAndBuffers(), m_trainer.model().size(),
                         m_ctx.config->codecs.gradients, out))
            onStepReduced(out);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        m_now = now;
        if (m.kind == MessageKind::RingChunk) {
            if (m_ring.onChunk(std::move(m), out))
                onStepReduced(out);
        } else if (m.kind == MessageKind::FullValues && (m.from == kCenterNode || m.from == m_leader)) {
            m_global = std::move(m); // may overtake this edge's last ring chunks
            tryTakeGlobal(out);
        }
    }

    void onKilled(double, Outbox &) override {
        m_waiting = m_inStep = false;
        m_trainer.killed();
    }
    bool done() const { return m_trainer.budgetUsed() && !m_waiting && !m_inStep && !m_trainer.running(); }
    Replica &replica() { return m_trainer.replica(); }

private:
    bool leader() const { return m_leader == id(); }

    void onStepReduced(Outbox &out) {
        m_inStep = false;
        m_trainer.applyMeanGradient(m_ring.result(), double(m_ring.size()));
        ++m_localSteps;
        if (m_localSteps < m_ctx.config->knobs.dilocoLocalSteps && !m_trainer.budgetUsed()) {
            m_trainer.train(m_now, out);
            return;
        }
        m_waiting = true;
        if (leader())
            out.send(localDelta(m_trainer.model(), m_roundStart, m_held, m_feedback, m_ctx.config->codecs.center));
        tryTakeGlobal(out);
    }

    void tryTakeGlobal(Outbox &out) {
        if (!m_waiting || !m_global)
            return;
        Message m = std::move(*m_global);
        m_global.reset();
        if (!receiveModel(m, m_roundStart, m_held))
            return;
        if (leader()) {
            // Whole fp32 values to the region: every replica must start the
            // next round from the same bits, and the relay is on the LAN,
            // once per H steps (members never report what they hold, so a
            // delta could not be checked against it).
            for (int node : m_members) {
                if (node == id())
                    continue;
                Message v;
                v.kind = MessageKind::FullValues;
                v.to = node;
                v.tensor = m_roundStart.clone();
                out.send(std::move(v));
            }
        }
        m_trainer.model().setValues(m_roundStart);
        m_localSteps = 0;
        m_waiting = false;
        m_trainer.train(m_now, out);
    }

    const NodeContext &m_ctx;
    EdgeTrainer m_trainer;
    std::vector<int> m_members;
    RingReduce m_ring;
    int m_leader;
    ErrorFeedback m_feedback;       // leader: what lossy center deltas left out
    at::Tensor m_roundStart;        // the global model as last received
    std::uint64_t m_held = 0;       // its version
    std::optional<Message> m_global;
    int m_localSteps = 0;
    bool m_inStep = false;  // this step's gradient is in the region's ring
    bool m_waiting = false; // at an outer step, the new global model not here yet
    double m_now = 0;
};

class HierDiLoCoCenter : public DiLoCoCenter {
public:
    explicit HierDiLoCoCenter(const NodeContext &ctx) : DiLoCoCenter(ctx, ctx.shape->regionCount()) {}
};

} // namespace

std::unique_ptr<Strategy> makeHierDiLoCoStrategy() {
    return std::make_unique<CenteredStrategy<HierDiLoCoCenter, HierDiLoCoEdge>>();
}

} // namespace synaptic::engine
