#pragma once

// The only engine header that pulls in LibTorch's nn headers; include it only
// from .cpp files of the engine, tests and benchmarks that need the tensors.
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>

namespace synaptic::engine {

struct ModelOutput {
    torch::Tensor logits;     // the full network's class scores, [N, 10]
    torch::Tensor exitLogits; // the early-exit head's class scores, [N, 10]
};

// A small Fashion-MNIST CNN (~99K parameters):
//   block1: conv 1->32 3x3, batch-norm, ReLU, max-pool 2           -> 32x14x14
//   block2: conv 32->64 3x3, batch-norm, ReLU, max-pool 2, pool 2  -> 64x3x3
//   fc1: 576->128, ReLU; fc2: 128->10
// plus an early-exit head after block1 (avg-pool to 4x4, linear 512->10) that
// the edge runs alone at inference time and that is trained jointly.
// The budget goes to the convolutions and a wide hidden layer rather than to
// a 7x7 spatial map, and batch-norm makes 5 epochs enough: without it, both
// this layout and a 24/48-channel one with a 2352->40 layer reached only
// 0.903-0.905 after 5 epochs here. Batch-norm is per output channel, so its
// weights, biases and running statistics shard with their conv's channels.
// Conv layers shard by output channels and the linear layers by output rows,
// so every layer keeps its output dimension first.
class SynapticNetImpl : public torch::nn::Module {
public:
    SynapticNetImpl();

    ModelOutput forward(const torch::Tensor &images);
    // First block and exit head only: what an edge runs for early exit.
    torch::Tensor forwardExit(const torch::Tensor &images);

    // Multiply-adds of one forward pass of one sample through the main path
    // and the exit head; training costs about 3x this (forward + backward).
    static std::int64_t forwardMacsPerSample();

    torch::nn::Conv2d conv1{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr};
    torch::nn::Conv2d conv2{nullptr};
    torch::nn::BatchNorm2d bn2{nullptr};
    torch::nn::Linear fc1{nullptr};
    torch::nn::Linear fc2{nullptr};
    torch::nn::Linear exitHead{nullptr};

private:
    torch::Tensor block1(const torch::Tensor &images);
    torch::Tensor exitFromBlock1(const torch::Tensor &features);
};
TORCH_MODULE(SynapticNet);

// Number of trainable scalars in the module.
std::int64_t parameterCount(const torch::nn::Module &module);

} // namespace synaptic::engine
