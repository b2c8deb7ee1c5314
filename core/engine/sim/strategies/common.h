#pragma once

#include "core/engine/sim/replica.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace synaptic::engine {

// Helpers the strategies share.

// Mean of the replicas' batch-norm statistics: what the harness gives a
// merged model to evaluate with (no strategy ships them as parameters).
template <typename Replicas>
at::Tensor meanBuffers(const Replicas &replicas) {
    at::Tensor sum;
    for (Replica *r : replicas)
        sum = sum.defined() ? sum.add_(r->model().buffers()) : r->model().buffers();
    return sum.div_(double(replicas.size()));
}

} // namespace synaptic::engine
