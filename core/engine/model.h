#pragma once

// The only engine header that pulls in LibTorch's nn headers; include it only
// from .cpp files of the engine, tests and benchmarks that need the tensors.
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>
#include <vector>

namespace synaptic::engine {

struct ModelOutput {
    torch::Tensor logits;     // the full network's class scores, [N, 10]
    torch::Tensor exitLogits; // the early-exit head's class scores, [N, 10]
};

// What the edge half of the split model computes for one batch: the exit
// head's scores and the bottleneck features it sends to the center when the
// exit head is not sure enough.
struct EdgeOutput {
    torch::Tensor exitLogits; // [N, 10]
    torch::Tensor features;   // [N, 4, 7, 7]: the center's input (sent as fp16)
};

// A small Fashion-MNIST CNN (~100K parameters), split for early exit
// (DESIGN.md §1): the edge half runs
//   block1: conv 1->32 3x3, batch-norm, ReLU, max-pool 2           -> 32x14x14
//   exit head on block1: avg-pool to 4x4, linear 512->10
//   squeeze: conv 32->4 2x2 stride 2, batch-norm (linear)          -> 4x7x7
// and the center half, on the squeezed features,
//   expand: nearest upsample x2, conv 4->32 3x3, batch-norm, ReLU  -> 32x14x14
//   block2: conv 32->64 3x3, batch-norm, ReLU, max-pool 2, pool 2  -> 64x3x3
//   fc1: 576->128, ReLU; fc2: 128->10.
// Both heads are trained jointly (BranchyNet: main loss + exit_weight x exit
// loss). The squeeze/expand bottleneck exists for the wire: block1's output
// is 6,272 values (12.5 KB in fp16), 16x the 784-byte raw image, so
// forwarding it would cost more than sending the image; 4x7x7 = 196 values
// is 392 bytes in fp16, half the image. It is linear (no ReLU) so the sign
// carries information too.
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
    // The split model: forwardCenter(forwardEdge(x).features) equals
    // forward(x).logits exactly (the same operations in the same order).
    EdgeOutput forwardEdge(const torch::Tensor &images);
    torch::Tensor forwardCenter(const torch::Tensor &features);

    // Multiply-adds of one forward pass of one sample through the main path
    // and the exit head; training costs about 3x this (forward + backward).
    static std::int64_t forwardMacsPerSample();
    // Multiply-adds of the edge half (block1, exit head, squeeze) and of the
    // center half (expand, block2, fc1, fc2) of one sample's forward pass.
    static std::int64_t edgeMacsPerSample();
    static std::int64_t centerMacsPerSample();
    // Shape of one sample's features at the split: {4, 7, 7}.
    static std::vector<std::int64_t> featureShape();

    torch::nn::Conv2d conv1{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr};
    torch::nn::Conv2d squeeze{nullptr};
    torch::nn::BatchNorm2d squeezeBn{nullptr};
    torch::nn::Conv2d expand{nullptr};
    torch::nn::BatchNorm2d expandBn{nullptr};
    torch::nn::Conv2d conv2{nullptr};
    torch::nn::BatchNorm2d bn2{nullptr};
    torch::nn::Linear fc1{nullptr};
    torch::nn::Linear fc2{nullptr};
    torch::nn::Linear exitHead{nullptr};

private:
    torch::Tensor block1(const torch::Tensor &images);
    torch::Tensor exitFromBlock1(const torch::Tensor &features);
    torch::Tensor squeezeBlock1(const torch::Tensor &features);
};
TORCH_MODULE(SynapticNet);

// Number of trainable scalars in the module.
std::int64_t parameterCount(const torch::nn::Module &module);

} // namespace synaptic::engine
