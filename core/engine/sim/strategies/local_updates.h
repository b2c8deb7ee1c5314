#pragma once

#include "core/engine/synapse/flat_model.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace synaptic::engine {

// A synaptic edge's own optimizer under knobs.local_updates (local SGD,
// FedAvg; DiLoCo's inner steps): after each step the edge moves its
// replica by one Adam step on its own gradient, and what it sends its
// owners is that move, summed over the window, instead of the gradient.
// The moves not yet sent are kept apart so that values arriving from an
// owner (a merge that does not hold them yet) replace the replica's copy
// of the region's progress without erasing the edge's own. Engine thread
// only; lives inside its edge.
class LocalUpdates {
public:
    // Moves `model`'s values by one Adam step on its gradients, for the
    // shards marked in `moves` only, at rate `lr`. Returns the move in shard
    // order (zero where not marked) and keeps it as unsent.
    at::Tensor step(FlatModel &model, const std::vector<bool> &moves, double lr);
    // The unsent moves of `shard`.
    at::Tensor unsent(const FlatModel &model, int shard) const;
    // What the replica's copy of `shard` becomes when an owner's whole
    // `values` of it arrive: those values plus the moves not sent yet
    // (a value delta, added to the replica's copy, keeps them as it is).
    at::Tensor onWholeValues(const FlatModel &model, int shard, const at::Tensor &values) const {
        return values.add(unsent(model, shard));
    }
    // `shard`'s moves went to its owner (a window closed).
    void markSent(const FlatModel &model, int shard);
    // The unsent moves are dropped (a lease lapse, a restart, leaving):
    // they will never reach an owner, and the replica gets owners' values.
    void dropUnsent();

private:
    AdamState m_adam;   // over the whole replica, in shard order
    at::Tensor m_unsent; // shard order; undefined until the first step
};

} // namespace synaptic::engine
