#include "flat_model.h"

#include <torch/csrc/autograd/grad_mode.h>
#include <torch/nn/module.h>

#include <map>
#include <stdexcept>

namespace synaptic::engine {

FlatModel::FlatModel(std::unique_ptr<TaskModel> model, const ShardPlan &plan, const std::vector<LayerLayout> &layers,
                     const std::string &device)
    : m_model(std::move(model)) {
    torch::NoGradGuard noGrad;
    auto &net = m_model->module();
    net.to(torch::Device(device));
    auto named = net.named_parameters(true);
    std::int64_t total = 0;
    for (const auto &p : named)
        total += p.value().numel();
    const auto opts = named[0].value().options();
    m_params = torch::empty({total}, opts);
    m_grads = torch::zeros({total}, opts);

    // Re-seat every parameter (and its gradient) on a view of the flat storage.
    std::map<std::string, std::int64_t> offsetOf;
    std::int64_t offset = 0;
    for (auto &p : named) {
        auto &t = p.value();
        const auto n = t.numel();
        auto view = m_params.slice(0, offset, offset + n).view(t.sizes());
        view.copy_(t);
        t.set_data(view);
        t.mutable_grad() = m_grads.slice(0, offset, offset + n).view(t.sizes());
        offsetOf[p.key()] = offset;
        offset += n;
    }

    std::map<std::string, const LayerLayout *> layerOf;
    for (const auto &l : layers)
        layerOf[l.name] = &l;
    std::vector<std::int64_t> index;
    index.reserve(std::size_t(total));
    m_offsets.push_back(0);
    for (const auto &shard : plan.shards) {
        const auto it = layerOf.find(shard.layer);
        if (it == layerOf.end())
            throw std::invalid_argument("FlatModel: plan names unknown layer '" + shard.layer + "'");
        for (const auto &name : it->second->tensors) {
            const torch::Tensor &t = *named.find(name);
            const std::int64_t rowSize = t.numel() / t.size(0);
            const std::int64_t base = offsetOf.at(name);
            for (std::int64_t i = shard.rowBegin * rowSize; i < shard.rowEnd * rowSize; ++i)
                index.push_back(base + i);
        }
        m_offsets.push_back(std::int64_t(index.size()));
    }
    if (std::int64_t(index.size()) != total)
        throw std::invalid_argument("FlatModel: shards cover " + std::to_string(index.size()) + " of " +
                                    std::to_string(total) + " parameters");
    m_toParam = torch::tensor(index, torch::TensorOptions().dtype(torch::kInt64)).to(opts.device());

    for (const auto &b : net.named_buffers(true))
        if (b.key().find("running_") != std::string::npos)
            m_buffers.push_back(b.value());
}

at::Tensor FlatModel::values() const { return m_params.index_select(0, m_toParam); }
at::Tensor FlatModel::gradients() const { return m_grads.index_select(0, m_toParam); }

at::Tensor FlatModel::shardSlice(const at::Tensor &shardOrdered, int shard) const {
    return shardOrdered.slice(0, shardOffset(shard), shardOffset(shard + 1));
}

at::Tensor FlatModel::shardValues(int shard) const { return m_params.index_select(0, shardSlice(m_toParam, shard)); }

void FlatModel::setValues(const at::Tensor &shardOrdered) {
    if (shardOrdered.numel() != size())
        throw std::invalid_argument("FlatModel: expected " + std::to_string(size()) + " values, got " +
                                    std::to_string(shardOrdered.numel()));
    torch::NoGradGuard noGrad;
    m_params.index_copy_(0, m_toParam, shardOrdered);
}

void FlatModel::setShardValues(int shard, const at::Tensor &values) {
    if (values.numel() != shardSize(shard))
        throw std::invalid_argument("FlatModel: shard " + std::to_string(shard) + " expects " +
                                    std::to_string(shardSize(shard)) + " values, got " +
                                    std::to_string(values.numel()));
    torch::NoGradGuard noGrad;
    m_params.index_copy_(0, shardSlice(m_toParam, shard), values);
}

at::Tensor FlatModel::buffers() const {
    std::vector<at::Tensor> parts;
    for (const auto &b : m_buffers)
        parts.push_back(b.reshape({-1}));
    // A model without batch-norm (langid) has none: an empty tensor, not cat's error.
    return parts.empty() ? torch::zeros({0}, m_params.options()) : torch::cat(parts);
}

void FlatModel::setBuffers(const at::Tensor &flat) {
    torch::NoGradGuard noGrad;
    std::int64_t offset = 0;
    for (auto &b : m_buffers) {
        b.copy_(flat.slice(0, offset, offset + b.numel()).view(b.sizes()));
        offset += b.numel();
    }
}

std::uint64_t tensorChecksum(const at::Tensor &t) {
    const auto c = t.detach().to(torch::kCPU).contiguous();
    const auto *bytes = static_cast<const unsigned char *>(c.data_ptr());
    const std::size_t n = std::size_t(c.numel()) * c.element_size();
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < n; ++i) {
        h ^= bytes[i];
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace synaptic::engine
