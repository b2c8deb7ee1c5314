#pragma once

#include "collecting_center.h"

#include "core/engine/synapse/shard_optimizer.h"

namespace synaptic::engine {

// DiLoCo's center: an outer step from the mean delta. `expected` senders
// per round: every edge (diloco), or one leader per region (hier_diloco).
class DiLoCoCenter : public CollectingCenter {
public:
    DiLoCoCenter(const NodeContext &ctx, int expected)
        : CollectingCenter(ctx, MessageKind::LocalDelta, expected, &CodecKnobs::center),
          m_outer(ctx.config->knobs.outerOptimizer, ctx.config->knobs.outerLearningRate,
                  ctx.config->knobs.outerMomentum) {}
    explicit DiLoCoCenter(const NodeContext &ctx) : DiLoCoCenter(ctx, ctx.shape->edgeCount()) {}

protected:
    void update(at::Tensor &values, const at::Tensor &mean) override {
        const auto &k = m_ctx.config->knobs;
        m_outer.setParameters(k.outerOptimizer, k.outerLearningRate, k.outerMomentum);
        at::Tensor meanDelta = mean;
        m_outer.step(values, meanDelta, m_momentum);
    }
    double updateFlopsPerParameter() const override { return kOuterFlopsPerParameter; }

private:
    OuterOptimizer m_outer;
    at::Tensor m_momentum;
};

} // namespace synaptic::engine
