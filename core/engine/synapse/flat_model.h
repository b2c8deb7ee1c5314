#pragma once

#include "layer_layout.h"
#include "shard_planner.h"

#include "core/engine/tasks/task_model.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace synaptic::engine {

// A task's model (any registered one) whose parameters and gradients are views into two flat
// tensors, so that a whole replica, or one shard of it, moves with a single
// tensor operation instead of one per layer tensor. Shards are contiguous
// ranges of the "shard order" (shard 0's rows of every tensor that follows
// its layer, then shard 1's...); `m_toParam` maps that order to the model's
// parameter order. Values cross between replicas, owners and the center
// always in shard order. One thread at a time.
class FlatModel {
public:
    FlatModel(std::unique_ptr<TaskModel> model, const ShardPlan &plan, const std::vector<LayerLayout> &layers,
              const std::string &device);

    TaskModel &task() { return *m_model; }
    torch::nn::Module &module() { return m_model->module(); }
    std::int64_t size() const { return m_params.numel(); }
    std::int64_t shardOffset(int shard) const { return m_offsets[std::size_t(shard)]; }
    std::int64_t shardSize(int shard) const {
        return m_offsets[std::size_t(shard) + 1] - m_offsets[std::size_t(shard)];
    }
    int shardCount() const { return int(m_offsets.size()) - 1; }
    // `shard`'s range of a tensor in shard order (values, gradients, a
    // move): a view, so writes land in `shardOrdered`.
    at::Tensor shardSlice(const at::Tensor &shardOrdered, int shard) const;

    // Copies in shard order.
    at::Tensor values() const;
    at::Tensor gradients() const;
    at::Tensor shardValues(int shard) const;
    void setValues(const at::Tensor &shardOrdered);
    void setShardValues(int shard, const at::Tensor &values);
    void zeroGradients() { m_grads.zero_(); }

    // Batch-norm running statistics: per-replica state that no gradient
    // carries; the harness averages them when it evaluates a merged model.
    at::Tensor buffers() const;
    void setBuffers(const at::Tensor &flat);

private:
    std::unique_ptr<TaskModel> m_model;
    at::Tensor m_params;   // parameter order, storage of every parameter
    at::Tensor m_grads;    // parameter order, storage of every .grad
    at::Tensor m_toParam;  // int64 [P]: shard-order position -> parameter-order position
    std::vector<std::int64_t> m_offsets; // shard-order offsets, shardCount()+1 entries
    std::vector<at::Tensor> m_buffers;   // running mean/var of every batch-norm
};

// A deterministic checksum of a tensor's float bits (FNV-1a), for the
// center's consistency check and the event-stream hash.
std::uint64_t tensorChecksum(const at::Tensor &t);

} // namespace synaptic::engine
