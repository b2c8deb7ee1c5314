#pragma once

#include "core/engine/sim/node_context.h"
#include "core/engine/sim/replica.h"
#include "core/engine/sim/sim_node.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <ATen/core/Tensor.h>

#include <memory>

namespace torch::optim {
class Adam;
}

namespace synaptic::engine {

// What every training edge of a baseline repeats (issue 14): one real
// LibTorch step whose virtual duration comes from the compute model, its
// samples reported when the step's time is up, the step budget, and an
// Adam step on the flat model from a summed gradient.
class EdgeTrainer {
public:
    explicit EdgeTrainer(const NodeContext &ctx);

    bool budgetUsed() const;
    bool running() const { return m_running; }
    // Trains one step now and sets a timer of `timerKind` for when its
    // virtual time is up, unless the budget is used; returns whether it did.
    bool train(double now, Outbox &out, int timerKind = 0);
    // The step's timer fired: the step boundary, its samples counted.
    void stepDone(Outbox &out);
    void killed() { m_running = false; }

    std::uint64_t steps() const;
    Replica &replica() { return *m_replica; }
    FlatModel &model();
    // The step's gradient followed by the batch-norm statistics (one tensor
    // to reduce across edges).
    at::Tensor gradientsAndBuffers();
    // Applies `sum / count`: Adam on its gradient part, its buffer part as
    // the batch-norm statistics.
    void applyMeanGradient(const at::Tensor &sum, double count);
    // Charges one optimizer step on the whole model (a local Adam step):
    // the next training step starts that much later (issue 14 §3).
    void chargeAdam();
    // One step of a local LibTorch Adam over the replica's parameters (the
    // baselines that train locally), at the scheduled rate, charged.
    void stepLocalAdam(torch::optim::Adam &adam);

private:
    const NodeContext &m_ctx;
    std::unique_ptr<Replica> m_replica;
    AdamState m_adam;
    double m_owedSeconds = 0; // charged compute the next step waits for
    bool m_running = false;
};

} // namespace synaptic::engine
