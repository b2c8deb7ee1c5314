// Baseline: hierarchical synchronous data parallel (issue 14). Every step a
// ring all-reduce inside each region over its LAN, then a ring all-reduce
// of the region sums across one leader per region over the WAN, then each
// leader sends the global sum to its region's edges; every edge applies
// the same Adam step. All of it with the gradients codec (the batch-norm
// statistics at its width, statisticsCodec).
#include "common.h"
#include "edge_trainer.h"
#include "region_rings.h"
#include "ring_reduce.h"

#include "core/engine/sim/strategy.h"

#include <map>
#include <optional>

namespace synaptic::engine {

namespace {

class HierRingEdge : public SimNode {
public:
    explicit HierRingEdge(const NodeContext &ctx)
        : SimNode(ctx.node), m_ctx(ctx), m_trainer(ctx), m_regionRing(0, regionNodes(*ctx.shape, ctx.region()), ctx.node),
          m_leader(leaderOf(*ctx.shape, ctx.region())) {
        if (m_leader == ctx.node)
            m_leaderRing.emplace(1, leaderNodes(*ctx.shape), ctx.node);
    }

    void start(double now, Outbox &out) override { m_trainer.train(now, out); }

    void onTimer(double now, int, std::uint64_t, Outbox &out) override {
        m_now = now;
        m_trainer.stepDone(out);
        m_step = m_trainer.steps();
        m_inStep = true;
        m_regionDone = m_regionRing.start(m_step, m_trainer.gradientsAndBuffers(), m_trainer.model().size(), codec(), out);
        if (m_regionDone)
            onRegionDone(out);
        tryFinish(out);
    }

    void onMessage(double now, Message &&m, Outbox &out) override {
        m_now = now;
        if (m.kind == MessageKind::RingChunk) {
            if (RingReduce::ringOf(m) == 1 && m_leaderRing) {
                if (m_leaderRing->onChunk(std::move(m), out))
                    onGlobalSum(m_leaderRing->result(), out);
            } else if (RingReduce::ringOf(m) == 0 && m_regionRing.onChunk(std::move(m), out)) {
                m_regionDone = true;
                onRegionDone(out);
            }
        } else if (m.kind == MessageKind::FullValues && m.from == m_leader) {
            m_global[m.round] = at::cat({m.tensor, m.buffers}); // may overtake this edge's last ring chunks
        }
        tryFinish(out);
    }

    bool done() const { return m_trainer.budgetUsed() && !m_inStep && !m_trainer.running(); }
    Replica &replica() { return m_trainer.replica(); }

private:
    CodecSpec codec() const { return m_ctx.config->codecs.gradients; }

    void onRegionDone(Outbox &out) {
        if (m_leader != id())
            return; // the leader sends the global sum
        if (m_leaderRing->start(m_step, m_regionRing.result(), m_trainer.model().size(), codec(), out))
            onGlobalSum(m_leaderRing->result(), out);
    }

    void onGlobalSum(const at::Tensor &sum, Outbox &out) {
        // The leader steps with what its region receives, so every replica
        // stays equal; the batch-norm statistics at the codec's width.
        const std::int64_t p = m_trainer.model().size();
        const Coded coded = encode(sum.slice(0, 0, p).clone(), codec());
        const Coded codedStats = encodeStatistics(sum.slice(0, p).clone(), codec());
        for (int node : regionNodes(*m_ctx.shape, m_ctx.region())) {
            if (node == id())
                continue;
            Message v;
            v.kind = MessageKind::FullValues;
            v.to = node;
            v.round = m_step;
            setCoded(v.tensor, v.tensorCoding, coded);
            setCoded(v.buffers, v.buffersCoding, codedStats);
            out.send(std::move(v));
        }
        m_global[m_step] = at::cat({decode(coded), decode(codedStats)});
    }

    void tryFinish(Outbox &out) {
        const auto it = m_global.find(m_step);
        if (!m_inStep || !m_regionDone || it == m_global.end())
            return;
        m_inStep = false;
        m_regionDone = false;
        m_trainer.applyMeanGradient(it->second, double(m_ctx.shape->edgeCount()));
        m_global.erase(m_global.begin(), std::next(it));
        m_trainer.train(m_now, out);
    }

    const NodeContext &m_ctx;
    EdgeTrainer m_trainer;
    RingReduce m_regionRing;
    std::optional<RingReduce> m_leaderRing; // leaders only
    int m_leader;
    std::map<std::uint64_t, at::Tensor> m_global; // global sums by step
    std::uint64_t m_step = 0;
    bool m_inStep = false;
    bool m_regionDone = false;
    double m_now = 0;
};

} // namespace

std::unique_ptr<Strategy> makeHierAllReduceStrategy() {
    return std::make_unique<SynchronousEdgesStrategy<HierRingEdge>>();
}

} // namespace synaptic::engine
