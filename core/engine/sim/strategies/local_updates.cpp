#include "local_updates.h"

#include <torch/csrc/autograd/grad_mode.h>
#include <torch/types.h>

namespace synaptic::engine {

at::Tensor LocalUpdates::step(FlatModel &model, const std::vector<bool> &moves, double lr) {
    torch::NoGradGuard noGrad;
    const at::Tensor before = model.values();
    at::Tensor after = before.clone();
    AdamOptions options;
    options.lr = lr;
    adamStep(after, model.gradients(), m_adam, options);
    at::Tensor move = after.sub_(before);
    for (int s = 0; s < model.shardCount(); ++s)
        if (!moves[std::size_t(s)]) // a shard whose owner's values it lacks is not moved (nor pushed)
            move.slice(0, model.shardOffset(s), model.shardOffset(s + 1)).zero_();
    model.setValues(before + move);
    if (!m_unsent.defined())
        m_unsent = torch::zeros_like(move);
    m_unsent.add_(move);
    return move;
}

at::Tensor LocalUpdates::unsent(const FlatModel &model, int shard) const {
    if (!m_unsent.defined())
        return torch::zeros({model.shardSize(shard)}, model.shardValues(shard).options());
    return m_unsent.slice(0, model.shardOffset(shard), model.shardOffset(shard + 1));
}

void LocalUpdates::markSent(const FlatModel &model, int shard) {
    if (m_unsent.defined())
        m_unsent.slice(0, model.shardOffset(shard), model.shardOffset(shard + 1)).zero_();
}

void LocalUpdates::dropUnsent() {
    if (m_unsent.defined())
        m_unsent.zero_();
}

} // namespace synaptic::engine
