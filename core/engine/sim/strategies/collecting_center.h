#pragma once

#include "model_copies.h"

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_node.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace synaptic::engine {

// What the parameter server's and DiLoCo's centers share: each round they
// collect one tensor (a gradient, a delta) and batch-norm statistics from
// every expected sender, step when all arrived or kStragglerSeconds after
// the first (a dead sender cannot stall the cluster), and send each sender
// the new model (ModelCopies: coded deltas under a lossy `replyCodec`).
class CollectingCenter : public SimNode {
public:
    static constexpr double kStragglerSeconds = 10.0;

    CollectingCenter(const NodeContext &ctx, MessageKind collects, int expected, CodecSpec CodecKnobs::*replyCodec);

    void start(double now, Outbox &out) override;
    void onMessage(double now, Message &&m, Outbox &out) override;
    void onTimer(double now, int kind, std::uint64_t round, Outbox &out) override;
    bool finished() const override { return idle(); }
    bool evaluationModel(at::Tensor &values, at::Tensor &buffers) const override;

    at::Tensor values() const { return m_values; }
    at::Tensor buffers() const { return m_buffers; }
    bool idle() const { return m_from.empty(); }

protected:
    // One step of the global model from the senders' mean tensor.
    virtual void update(at::Tensor &values, const at::Tensor &mean) = 0;
    virtual double updateFlopsPerParameter() const = 0;
    // Steps taken before the one `update` is taking (one per round).
    std::uint64_t roundsDone() const { return m_round; }
    const NodeContext &m_ctx;

private:
    void step(Outbox &out);

    MessageKind m_collects;
    int m_expected;
    CodecSpec CodecKnobs::*m_replyCodec;
    at::Tensor m_values, m_buffers, m_sum, m_bufferSum;
    std::vector<std::pair<int, std::uint64_t>> m_from; // sender, the copy it holds
    std::uint64_t m_round = 0;
    ModelCopies m_copies;
};

} // namespace synaptic::engine
