#include "edge_trainer.h"

#include "core/engine/learning_rate.h"
#include "core/engine/sim/node_report.h"

#include <ATen/ATen.h>
#include <torch/optim/adam.h>

namespace synaptic::engine {

EdgeTrainer::EdgeTrainer(const NodeContext &ctx) : m_ctx(ctx), m_replica(ctx.newReplica()) {}

bool EdgeTrainer::budgetUsed() const { return m_ctx.stepsPerEdge > 0 && m_replica->steps() >= m_ctx.stepsPerEdge; }

std::uint64_t EdgeTrainer::steps() const { return m_replica->steps(); }

FlatModel &EdgeTrainer::model() { return m_replica->model(); }

bool EdgeTrainer::train(double /*now*/, Outbox &out, int timerKind) {
    if (budgetUsed())
        return false;
    m_replica->trainStep(); // real LibTorch work; its virtual duration comes from the compute model
    m_running = true;
    // On the node's compute queue: the step waits for serving requests (and
    // charged compute) ahead of it, and requests wait behind it (issue 14 §6).
    out.computeTimer(m_owedSeconds + m_ctx.trainStepSeconds(), timerKind);
    m_owedSeconds = 0;
    return true;
}

void EdgeTrainer::stepDone(Outbox &out) {
    m_running = false;
    out.report(StepReport{std::uint64_t(m_replica->batchSize())});
}

at::Tensor EdgeTrainer::gradientsAndBuffers() { return at::cat({model().gradients(), model().buffers()}); }

void EdgeTrainer::chargeAdam() {
    m_owedSeconds += m_ctx.computeSeconds(kAdamFlopsPerParameter * double(m_replica->model().size()));
}

void EdgeTrainer::stepLocalAdam(torch::optim::Adam &adam) {
    setAdamLearningRate(adam, m_ctx.learningRate(steps()));
    adam.step();
    chargeAdam();
}

void EdgeTrainer::applyMeanGradient(const at::Tensor &sum, double count) {
    chargeAdam();
    auto &flat = model();
    const auto mean = sum / count;
    const std::int64_t p = flat.size();
    auto values = flat.values();
    AdamOptions adam;
    adam.lr = m_ctx.learningRate(steps());
    adamStep(values, mean.slice(0, 0, p), m_adam, adam);
    flat.setValues(values);
    flat.setBuffers(mean.slice(0, p));
}

} // namespace synaptic::engine
