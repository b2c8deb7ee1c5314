#pragma once

#include "core/engine/synapse/flat_model.h"
#include "core/engine/tensor_data.h"

#include <cstdint>
#include <random>
#include <vector>

namespace synaptic::engine {

// An edge's cached model replica and its data partition: one real LibTorch
// training step at a time (forward, loss of both heads, backward). What
// happens to the gradient is the strategy's business. Engine thread only.
class Replica {
public:
    Replica(std::unique_ptr<FlatModel> model, const TensorSet &train, std::vector<std::size_t> indices,
            int batchSize, double exitWeight, std::uint64_t seed);

    // Leaves the batch's gradient in model().gradients() (zeroed first).
    void trainStep();

    FlatModel &model() { return *m_model; }
    std::uint64_t steps() const { return m_steps; }
    std::uint64_t samples() const { return m_samples; }
    int batchSize() const { return m_batch; }
    // Mean training loss since the last call (NaN if no step ran).
    double takeMeanLoss();
    // Moving average of a step's wall time (live drivers; 0.05 before the first).
    double meanStepWallSeconds() const { return m_steps ? m_stepWallSeconds : 0.05; }

private:
    at::Tensor nextBatch();

    std::unique_ptr<FlatModel> m_model;
    TensorSet m_train; // shares the tensors' storage: a copy is a few reference counts
    at::Tensor m_indices;   // int64 on the data's device, reshuffled every pass
    std::vector<std::int64_t> m_order;
    std::size_t m_cursor = 0;
    std::mt19937_64 m_rng;
    int m_batch;
    double m_exitWeight;
    std::uint64_t m_steps = 0;
    std::uint64_t m_samples = 0;
    at::Tensor m_lossSum;
    int m_lossSteps = 0;
    double m_stepWallSeconds = 0;
};

} // namespace synaptic::engine
