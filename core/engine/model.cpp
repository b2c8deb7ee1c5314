#include "model.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/functional/upsampling.h>

namespace synaptic::engine {

namespace {
constexpr int kC1 = 32;
constexpr int kC2 = 64;
constexpr int kSqueezed = 4;  // channels at the split
constexpr int kSplitSide = 7; // 14x14 -> 7x7 by the stride-2 squeeze
constexpr int kSpatial = 3;   // after block2's two poolings: 14 -> 7 -> 3
constexpr int kHidden = 128;
constexpr int kExitPool = 4;
constexpr int kClasses = 10;
} // namespace

namespace F = torch::nn::functional;

// Registration order is the layout order (layoutOf): each batch-norm must
// follow the conv whose channels it normalises.
SynapticNetImpl::SynapticNetImpl() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, kC1, 3).padding(1)));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(kC1));
    squeeze = register_module("squeeze", torch::nn::Conv2d(torch::nn::Conv2dOptions(kC1, kSqueezed, 2).stride(2)));
    squeezeBn = register_module("squeeze_bn", torch::nn::BatchNorm2d(kSqueezed));
    expand = register_module("expand", torch::nn::Conv2d(torch::nn::Conv2dOptions(kSqueezed, kC1, 3).padding(1)));
    expandBn = register_module("expand_bn", torch::nn::BatchNorm2d(kC1));
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

torch::Tensor SynapticNetImpl::squeezeBlock1(const torch::Tensor &features) {
    return squeezeBn->forward(squeeze->forward(features));
}

torch::Tensor SynapticNetImpl::forwardCenter(const torch::Tensor &squeezed) {
    auto up = F::interpolate(squeezed, F::InterpolateFuncOptions()
                                           .scale_factor(std::vector<double>{2.0, 2.0})
                                           .mode(torch::kNearest));
    auto x = torch::relu(expandBn->forward(expand->forward(up)));
    x = F::max_pool2d(torch::relu(bn2->forward(conv2->forward(x))), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(x, F::MaxPool2dFuncOptions(2));
    x = torch::relu(fc1->forward(x.flatten(1)));
    return fc2->forward(x);
}

ModelOutput SynapticNetImpl::forward(const torch::Tensor &images) {
    const EdgeOutput edge = forwardEdge(images);
    return {forwardCenter(edge.features), edge.exitLogits};
}

EdgeOutput SynapticNetImpl::forwardEdge(const torch::Tensor &images) {
    auto features = block1(images);
    return {exitFromBlock1(features), squeezeBlock1(features)};
}

torch::Tensor SynapticNetImpl::forwardExit(const torch::Tensor &images) {
    return exitFromBlock1(block1(images));
}

std::int64_t SynapticNetImpl::edgeMacsPerSample() {
    const std::int64_t conv1Macs = 28LL * 28 * kC1 * 1 * 9;
    const std::int64_t exitMacs = std::int64_t(kC1) * kExitPool * kExitPool * kClasses;
    const std::int64_t squeezeMacs = std::int64_t(kSplitSide) * kSplitSide * kSqueezed * kC1 * 4;
    return conv1Macs + exitMacs + squeezeMacs;
}

std::int64_t SynapticNetImpl::centerMacsPerSample() {
    const std::int64_t expandMacs = 14LL * 14 * kC1 * kSqueezed * 9;
    const std::int64_t conv2Macs = 14LL * 14 * kC2 * kC1 * 9;
    const std::int64_t fcMacs = std::int64_t(kC2) * kSpatial * kSpatial * kHidden + kHidden * kClasses;
    return expandMacs + conv2Macs + fcMacs;
}

std::int64_t SynapticNetImpl::forwardMacsPerSample() { return edgeMacsPerSample() + centerMacsPerSample(); }

std::vector<std::int64_t> SynapticNetImpl::featureShape() { return {kSqueezed, kSplitSide, kSplitSide}; }

std::int64_t parameterCount(const torch::nn::Module &module) {
    std::int64_t total = 0;
    for (const auto &p : module.parameters())
        total += p.numel();
    return total;
}

} // namespace synaptic::engine
