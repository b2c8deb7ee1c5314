#include "local_updates.h"

#include <torch/csrc/autograd/grad_mode.h>
#include <torch/types.h>

namespace synaptic::engine {

void LocalUpdates::ensureSums(const at::Tensor &like) {
    if (!m_unsent.defined())
        m_unsent = torch::zeros_like(like);
    if (!m_moved.defined())
        m_moved = torch::zeros_like(like);
}

at::Tensor LocalUpdates::step(FlatModel &model, const std::vector<bool> &shardsToMove, double lr) {
    torch::NoGradGuard noGrad;
    at::Tensor gradient = model.gradients();
    // Which shards' gradients are not finite: looked at per shard only
    // when the whole gradient is not (one check per step otherwise).
    std::vector<bool> bad(shardsToMove.size(), false);
    const bool anyBad = !gradient.isfinite().all().item<bool>();
    for (int s = 0; anyBad && s < model.shardCount(); ++s)
        bad[std::size_t(s)] = !model.shardSlice(gradient, s).isfinite().all().item<bool>();
    const at::Tensor rawGradient = anyBad ? gradient.clone() : gradient;
    for (int s = 0; s < model.shardCount(); ++s)
        if (bad[std::size_t(s)]) // kept out of the moments too
            model.shardSlice(gradient, s).zero_();
    at::Tensor values = model.values(); // a copy: becomes the new values below
    at::Tensor after = values.clone();
    AdamOptions options;
    options.lr = lr;
    adamStep(after, gradient, m_adam, options);
    at::Tensor move = after.sub_(values);
    for (int s = 0; s < model.shardCount(); ++s)
        if (!shardsToMove[std::size_t(s)] || bad[std::size_t(s)])
            model.shardSlice(move, s).zero_();
    model.setValues(values.add_(move));
    ensureSums(move);
    m_unsent.add_(move);
    m_moved.add_(move);
    if (!anyBad)
        return move;
    at::Tensor pushes = move.clone();
    for (int s = 0; s < model.shardCount(); ++s)
        if (bad[std::size_t(s)])
            model.shardSlice(pushes, s).copy_(model.shardSlice(rawGradient, s));
    return pushes;
}

at::Tensor LocalUpdates::unsent(const FlatModel &model, int shard) const {
    if (!m_unsent.defined())
        return torch::zeros({model.shardSize(shard)}, model.shardValues(shard).options());
    return model.shardSlice(m_unsent, shard).clone();
}

void LocalUpdates::markSent(const FlatModel &model, int shard) {
    if (m_unsent.defined())
        model.shardSlice(m_unsent, shard).zero_();
}

void LocalUpdates::dropUnsent() {
    if (m_unsent.defined())
        m_unsent.zero_();
}

at::Tensor LocalUpdates::onWholeValues(const FlatModel &model, int shard, const at::Tensor &values) {
    if (!m_unsent.defined())
        return values;
    model.shardSlice(m_moved, shard).copy_(model.shardSlice(m_unsent, shard));
    return values.add(model.shardSlice(m_unsent, shard));
}

at::Tensor LocalUpdates::onValueDelta(const FlatModel &model, int shard, const at::Tensor &delta) {
    const at::Tensor replica = model.shardValues(shard);
    if (!m_unsent.defined())
        return replica.add(delta);
    // The owner's copy the delta was taken on is the replica less the
    // edge's moves since it took that copy.
    at::Tensor values =
        replica.sub(model.shardSlice(m_moved, shard)).add_(delta).add_(model.shardSlice(m_unsent, shard));
    model.shardSlice(m_moved, shard).copy_(model.shardSlice(m_unsent, shard));
    return values;
}

void LocalUpdates::reset() {
    m_adam = AdamState{};
    m_unsent = at::Tensor();
    m_moved = at::Tensor();
}

} // namespace synaptic::engine
