#pragma once

#include "core/engine/sim/replica.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace synaptic::engine {

// Helpers the strategies share.

// Mean training loss of the replicas since the last call (NaN if none trained).
template <typename Replicas>
double meanLoss(const Replicas &replicas) {
    double sum = 0;
    int n = 0;
    for (Replica *r : replicas) {
        const double l = r->takeMeanLoss();
        if (!std::isnan(l)) {
            sum += l;
            ++n;
        }
    }
    return n ? sum / n : std::nan("");
}

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
