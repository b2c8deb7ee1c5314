#pragma once

#include "core/engine/tensor_data.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

namespace synaptic::engine {

class SynapticNet; // model.h: the early-exit split CNN

struct Accuracy {
    double main = 0; // the task's model (the full network)
    double exit = 0; // the early-exit head alone; NaN for a task without one
};

// One task's model as every training strategy drives it (issue 16 §1): the
// strategies, replicas, owners and the center see parameters (through
// FlatModel), a loss to backpropagate and an accuracy, never the network's
// own shape. One thread at a time.
class TaskModel {
public:
    virtual ~TaskModel() = default;

    virtual torch::nn::Module &module() = 0;

    struct Loss {
        at::Tensor total; // what to backpropagate
        at::Tensor main;  // the main head's loss alone (reported), detached
    };
    // The loss of `batch` (selectSamples' output) in training mode.
    // `exitWeight` weighs an early-exit head's loss where the task has one.
    virtual Loss trainingLoss(const TensorSet &batch, double exitWeight) = 0;

    // Top-1 accuracy over `set` in eval mode without gradients; the module's
    // training mode is restored afterwards.
    virtual Accuracy evaluate(const TensorSet &set) = 0;

    // The split network early-exit serving runs on; nullptr when the task has
    // none (serving is then off, and says why).
    virtual SynapticNet *splitNet() { return nullptr; }
};

// A task's data as the strategies train on it.
struct TaskData {
    TensorSet train;
    std::vector<std::uint8_t> trainLabels; // for the per-edge partition (IID or label skew)
    TensorSet test;
};

} // namespace synaptic::engine
