#include "forward_timing.h"

#include "exit_policy.h"
#include "split_predictions.h"

#include "core/engine/compute_threads.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

namespace synaptic::engine {

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double medianMs(int warmUp, int repeats, F &&once) {
    for (int i = 0; i < warmUp; ++i)
        once(i);
    std::vector<double> ms;
    ms.reserve(std::size_t(repeats));
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        once(i);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + repeats / 2, ms.end());
    return ms[std::size_t(repeats / 2)];
}

} // namespace

ForwardCosts measureForwardCosts(SynapticNet &model, const TensorSet &images, int repeats) {
    if (repeats < 1 || images.size() < 1)
        throw std::invalid_argument("measureForwardCosts: needs at least one repeat and one image");
    // Restores the thread count and the training mode however this returns
    // (a forward may throw).
    struct Restore {
        SynapticNet &model;
        int threads = at::get_num_threads();
        int blas = blasThreads(); // 0: not OpenBLAS
        bool training = model->is_training();
        ~Restore() {
            model->train(training);
            at::set_num_threads(threads);
            if (blas > 0)
                setBlasThreads(blas);
        }
    } restore{model};
    // One thread in both pools: a serving node answers many requests side
    // by side, one core each, rather than one request on every core.
    at::set_num_threads(1);
    setBlasThreads(1);
    model->eval();
    torch::NoGradGuard noGrad;
    const std::int64_t pool = std::min<std::int64_t>(images.size(), 64);
    std::vector<at::Tensor> one;
    std::vector<at::Tensor> features; // what each image's edge half sends, as it travels (fp16)
    for (std::int64_t i = 0; i < pool; ++i) {
        one.push_back(images.inputs.slice(0, i, i + 1).contiguous());
        features.push_back(model->forwardEdge(one.back()).features.to(at::kHalf));
    }
    const int warmUp = std::max(20, repeats / 10);
    ForwardCosts c;
    c.repeats = repeats;
    // The results are read back (item) so lazy work cannot leave the timed span.
    c.edgeMs = medianMs(warmUp, repeats, [&](int i) {
        const EdgeOutput out = model->forwardEdge(one[std::size_t(i % pool)]);
        const auto conf = exitConfidence(out.exitLogits, ConfidenceMeasure::MaxSoftmax);
        const auto wire = out.features.to(at::kHalf);
        (void)conf.item<float>();
        (void)wire.numel();
    });
    c.centerMs = medianMs(warmUp, repeats, [&](int i) {
        const auto x = features[std::size_t(i % pool)].to(at::kFloat);
        (void)model->forwardCenter(x).argmax(1).item<std::int64_t>();
    });
    c.fullMs = medianMs(warmUp, repeats, [&](int i) {
        (void)model->forward(one[std::size_t(i % pool)]).logits.argmax(1).item<std::int64_t>();
    });
    return c;
}

} // namespace synaptic::engine
