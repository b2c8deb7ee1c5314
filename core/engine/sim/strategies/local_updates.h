#pragma once

#include "core/engine/synapse/flat_model.h"
#include "core/engine/synapse/shard_optimizer.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace synaptic::engine {

// A synaptic edge's own optimizer under local updates (knobs.local_updates
// or the edge's own key: ClusterConfig::localUpdatesAt; local SGD,
// FedAvg; DiLoCo's inner steps): after each step the edge moves its
// replica by one Adam step on its own gradient, and what it sends its
// owners is that move, summed over the window, instead of the gradient.
// It keeps two running sums per shard: the moves not sent yet, and every
// move since the owner's last values of that shard (sent, unsent, or
// dropped on a lapse). Values from an owner (whole, or a delta on the
// owner's previous values) then give the replica the owner's copy plus
// the unsent moves: the edge keeps its own progress that the owner does
// not hold yet, and nothing twice. Engine thread only; lives inside its edge.
class LocalUpdates {
public:
    // Moves `model`'s values by one Adam step on its gradients, for the
    // shards marked in `shardsToMove` only, at rate `lr`. Returns what to
    // push per shard, in shard order: the move (zero where not marked), or,
    // for a shard whose gradient is not finite, that gradient itself, for
    // the gradient cache to refuse and count as it refuses a bad gradient
    // (the replica, the optimizer's moments and the sums stay clean).
    at::Tensor step(FlatModel &model, const std::vector<bool> &shardsToMove, double lr);
    // The unsent moves of `shard`.
    at::Tensor unsent(const FlatModel &model, int shard) const;
    // `shard`'s moves went to its owner (a window closed).
    void markSent(const FlatModel &model, int shard);
    // The unsent moves will never reach an owner (a lease lapse, leaving):
    // they stay in the replica until the owner's next values replace it.
    void dropUnsent();
    // What the replica's copy of `shard` becomes when an owner's whole
    // `values` of it arrive, or a `delta` on the owner's values the edge
    // last took: the owner's copy plus the unsent moves.
    at::Tensor onWholeValues(const FlatModel &model, int shard, const at::Tensor &values);
    at::Tensor onValueDelta(const FlatModel &model, int shard, const at::Tensor &delta);
    // A restart: the process's memory (optimizer state, both sums) is gone,
    // and its replica holds no owner's values it moved from.
    void reset();

private:
    void ensureSums(const at::Tensor &like);

    AdamState m_adam;     // over the whole replica, in shard order
    at::Tensor m_unsent;  // shard order; undefined until the first step
    at::Tensor m_moved;   // shard order: the replica minus the owners' copy it last took
};

} // namespace synaptic::engine
