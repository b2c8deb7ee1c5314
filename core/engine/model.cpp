#include "model.h"

#include <torch/nn/functional/pooling.h>

namespace synaptic::engine {

namespace {
constexpr int kC1 = 32;
constexpr int kC2 = 64;
constexpr int kSpatial = 3; // after the third pooling: 28 -> 14 -> 7 -> 3
constexpr int kHidden = 128;
constexpr int kExitPool = 4;
constexpr int kClasses = 10;
} // namespace

namespace F = torch::nn::functional;

SynapticNetImpl::SynapticNetImpl() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, kC1, 3).padding(1)));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(kC1));
    conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(kC1, kC2, 3).padding(1)));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(kC2));
    fc1 = register_module("fc1", torch::nn::Linear(kC2 * kSpatial * kSpatial, kHidden));
    fc2 = register_module("fc2", torch::nn::Linear(kHidden, kClasses));
    exitHead = register_module("exit_head", torch::nn::Linear(kC1 * kExitPool * kExitPool, kClasses));
}

torch::Tensor SynapticNetImpl::block1(const torch::Tensor &images) {
    return F::max_pool2d(torch::relu(bn1->forward(conv1->forward(images))), F::MaxPool2dFuncOptions(2));
}

torch::Tensor SynapticNetImpl::exitFromBlock1(const torch::Tensor &features) {
    auto pooled = F::adaptive_avg_pool2d(features, F::AdaptiveAvgPool2dFuncOptions({kExitPool, kExitPool}));
    return exitHead->forward(pooled.flatten(1));
}

ModelOutput SynapticNetImpl::forward(const torch::Tensor &images) {
    auto features = block1(images);
    auto x = F::max_pool2d(torch::relu(bn2->forward(conv2->forward(features))), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(x, F::MaxPool2dFuncOptions(2));
    x = torch::relu(fc1->forward(x.flatten(1)));
    return {fc2->forward(x), exitFromBlock1(features)};
}

torch::Tensor SynapticNetImpl::forwardExit(const torch::Tensor &images) {
    return exitFromBlock1(block1(images));
}

std::int64_t SynapticNetImpl::forwardMacsPerSample() {
    const std::int64_t conv1Macs = 28LL * 28 * kC1 * 1 * 9;
    const std::int64_t conv2Macs = 14LL * 14 * kC2 * kC1 * 9;
    const std::int64_t fcMacs = std::int64_t(kC2) * kSpatial * kSpatial * kHidden + kHidden * kClasses;
    const std::int64_t exitMacs = std::int64_t(kC1) * kExitPool * kExitPool * kClasses;
    return conv1Macs + conv2Macs + fcMacs + exitMacs;
}

std::int64_t parameterCount(const torch::nn::Module &module) {
    std::int64_t total = 0;
    for (const auto &p : module.parameters())
        total += p.numel();
    return total;
}

} // namespace synaptic::engine
