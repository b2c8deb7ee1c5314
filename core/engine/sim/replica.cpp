#include "replica.h"

#include <torch/types.h>

#include <chrono>
#include <limits>
#include <stdexcept>

namespace synaptic::engine {

Replica::Replica(std::unique_ptr<FlatModel> model, const TensorSet &train, std::vector<std::size_t> indices,
                 int batchSize, double exitWeight, std::uint64_t seed)
    : m_model(std::move(model)), m_train(train), m_rng(seed), m_batch(batchSize), m_exitWeight(exitWeight) {
    if (indices.empty())
        throw std::invalid_argument("Replica: an edge's data partition is empty");
    m_order.assign(indices.begin(), indices.end());
    m_cursor = m_order.size(); // shuffle on first use
    m_lossSum = torch::zeros({}, m_train.labels.options().dtype(torch::kFloat32));
}

at::Tensor Replica::nextBatch() {
    std::vector<std::int64_t> batch;
    batch.reserve(std::size_t(m_batch));
    while (int(batch.size()) < m_batch) {
        if (m_cursor == m_order.size()) {
            // Own Fisher-Yates over the seeded engine: libstdc++'s shuffle is
            // not specified, and partitions must not change with it.
            for (std::size_t i = m_order.size() - 1; i > 0; --i)
                std::swap(m_order[i], m_order[std::size_t(m_rng() % (i + 1))]);
            m_cursor = 0;
        }
        batch.push_back(m_order[m_cursor++]);
    }
    return torch::tensor(batch, torch::TensorOptions().dtype(torch::kInt64)).to(m_train.labels.device());
}

void Replica::trainStep() {
    const auto t0 = std::chrono::steady_clock::now();
    const TensorSet batch = selectSamples(m_train, nextBatch());
    m_model->zeroGradients();
    const TaskModel::Loss loss = m_model->task().trainingLoss(batch, m_exitWeight);
    loss.total.backward();
    m_lossSum += loss.main;
    ++m_lossSteps;
    ++m_steps;
    m_samples += std::uint64_t(m_batch);
    // Wall time is only read by live drivers (real time); never by the
    // simulator, whose durations come from the compute model.
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_stepWallSeconds = m_steps == 1 ? wall : 0.9 * m_stepWallSeconds + 0.1 * wall;
}

double Replica::takeMeanLoss() {
    if (m_lossSteps == 0)
        return std::numeric_limits<double>::quiet_NaN();
    const double mean = m_lossSum.item<double>() / m_lossSteps;
    m_lossSum.zero_();
    m_lossSteps = 0;
    return mean;
}

} // namespace synaptic::engine
