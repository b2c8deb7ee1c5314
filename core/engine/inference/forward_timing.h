#pragma once

#include "core/engine/model.h"
#include "core/engine/tensor_data.h"

namespace synaptic::engine {

// Wall milliseconds of one request's forward pass (batch 1, eval mode, no
// gradients, one LibTorch thread) on this machine, the median of `repeats`
// after a warm-up (issue 14 §6). For a one-image batch of this small model
// the time is mostly per-operator overhead, not FLOPs, which is why the
// serving model charges it as a fixed cost per request on top of FLOPs /
// speed. The config's serving.*_request_ms defaults come from these.
struct ForwardCosts {
    double edgeMs = 0;   // block1, exit head, squeeze, the confidence, features to fp16
    double centerMs = 0; // fp16 features back, the center half, the answer
    double fullMs = 0;   // the whole model on the raw image (center-only serving), the answer
    int repeats = 0;
};

// Cycles through the first images of `images`; restores the thread count
// and the model's training mode.
ForwardCosts measureForwardCosts(SynapticNet &model, const TensorSet &images, int repeats = 300);

} // namespace synaptic::engine
