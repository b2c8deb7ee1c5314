// bench/train_throughput: the engine trainer's samples/s against a plain
// LibTorch loop of the same model, batch, data and threads, and the training
// step's GFLOP/s against a large matmul, all measured in the same run.
//
//   build/release/bench/train_throughput [--samples N] [--batch N] [--threads N]
//                                        [--rounds N] [--json FILE] [--quiet]
//
// Progress goes to stderr between the timed runs, never inside one
// (--quiet: none); the figures go to stdout.
#include "bench_progress.h"
#include "core/data/fashion_mnist.h"
#include "core/engine/allocator.h"
#include "core/engine/compute_threads.h"
#include "core/engine/model.h"
#include "core/engine/tensor_data.h"
#include "core/engine/train_report.h"
#include "core/engine/trainer.h"
#include "plain_loop.h"

#include <ATen/Parallel.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace synaptic;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::size_t samples = 8000;
    int batch = 64;
    int threads = 0;
    // Many short paired rounds: on this shared VM one run differs from the
    // next by up to +-10 %, so the median of many adjacent pairs is what
    // resolves a 5 % difference. Even: each path runs first in half of them.
    int rounds = 10;
    std::string json;
    bool quiet = false; // no progress on stderr
};

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

using bench::plainLoopSamplesPerSecond;

double matmulGflops(int size) {
    const auto a = torch::randn({size, size});
    const auto b = torch::randn({size, size});
    auto c = torch::matmul(a, b); // warm-up
    const int reps = 20;
    const auto start = Clock::now();
    for (int i = 0; i < reps; ++i)
        c = torch::matmul(a, b);
    const double t = seconds(start, Clock::now());
    return 2.0 * double(size) * size * size * reps / t / 1e9;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

bool parse(int argc, char **argv, Options &o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quiet") {
            o.quiet = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "train_throughput: %s needs a value\n", a.c_str());
            return false;
        }
        const char *v = argv[++i];
        try {
            if (a == "--samples") o.samples = std::stoul(v);
            else if (a == "--batch") o.batch = std::stoi(v);
            else if (a == "--threads") o.threads = std::stoi(v);
            else if (a == "--rounds") o.rounds = std::stoi(v);
            else if (a == "--json") o.json = v;
            else {
                std::fprintf(stderr, "train_throughput: unknown option %s\n", a.c_str());
                return false;
            }
        } catch (const std::exception &) {
            std::fprintf(stderr, "train_throughput: %s expects a number, got '%s'\n", a.c_str(), v);
            return false;
        }
    }
    if (o.samples < 256 || o.batch < 1 || o.threads < 0 || o.rounds < 2) {
        std::fprintf(stderr, "train_throughput: need --samples >= 256, --batch >= 1, --threads >= 0, --rounds >= 2\n");
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    Options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(stderr, "usage: train_throughput [--samples N] [--batch N] [--threads N] [--rounds N] [--json FILE] "
                             "[--quiet]\n");
        return 2;
    }
    const int threads = engine::resolveThreadCount(o.threads);
    engine::setComputeThreads(threads);

    engine::TrainConfig cfg;
    cfg.epochs = 1;
    cfg.subset = o.samples;
    cfg.testSubset = 1000; // evaluation is timed apart and not part of samples/s
    cfg.batchSize = o.batch;
    cfg.threads = threads;
    cfg.device = "cpu";
    cfg.progressEverySteps = 20;

    // Runs: the warm-up, each round's two and the matmul.
    bench::BenchProgress progress("train_throughput", o.quiet, std::size_t(2 * o.rounds + 2));
    progress.phase("loading the data");
    const auto data = data::loadFashionMnist(data::resolveDataDir(""), data::Split::Train, o.samples);
    const engine::TensorSet train = engine::toTensors(data, "cpu");

    // Warm-up both paths once (allocator, OpenBLAS threads), then alternate
    // so that machine drift hits both equally.
    progress.next("warm-up");
    { engine::TrainConfig w = cfg; w.subset = 2048; engine::Trainer(w).run(); }
    plainLoopSamplesPerSecond(engine::sliceSamples(train, 0, 2048),
                              o.batch, cfg.learningRate, cfg.exitWeight, 1);
    std::vector<double> engineRuns, plainRuns, ratios;
    for (int r = 0; r < o.rounds; ++r) {
        cfg.seed = std::uint64_t(r + 1);
        // Alternate which path runs first, so neither always inherits the
        // other's cache and allocator state.
        const std::string round = "round " + std::to_string(r + 1) + "/" + std::to_string(o.rounds);
        auto runEngine = [&] {
            progress.next(round + ", engine trainer");
            engineRuns.push_back(engine::Trainer(cfg).run().samplesPerSecond);
        };
        auto runPlain = [&] {
            progress.next(round + ", plain loop");
            plainRuns.push_back(plainLoopSamplesPerSecond(train, o.batch, cfg.learningRate, cfg.exitWeight, cfg.seed));
        };
        if (r % 2 == 0) {
            runEngine();
            runPlain();
        } else {
            runPlain();
            runEngine();
        }
        ratios.push_back(engineRuns.back() / plainRuns.back());
        progress.clear();
        std::printf("round %d: engine %.0f samples/s, plain %.0f samples/s, ratio %.3f\n", r + 1, engineRuns.back(),
                    plainRuns.back(), ratios.back());
        std::fflush(stdout);
    }
    const double engineSps = median(engineRuns);
    const double plainSps = median(plainRuns);
    // The machine's speed drifts between rounds (a shared VM); each round's
    // two runs are adjacent, so the median of per-round ratios is the fair
    // comparison, not the ratio of medians.
    const double ratio = median(ratios);
    std::vector<double> sorted = ratios;
    std::sort(sorted.begin(), sorted.end());
    const double ratioQ1 = sorted[sorted.size() / 4];
    const double ratioQ3 = sorted[(3 * sorted.size()) / 4];
    const double flopsPerSample = 6.0 * double(engine::SynapticNetImpl::forwardMacsPerSample()); // fwd + bwd
    const double stepGflops = engineSps * flopsPerSample / 1e9;
    progress.next("2048^2 matmul");
    const double mmGflops = matmulGflops(2048);
    progress.endRun();
    progress.finish();

    std::string command = engine::blasEnvironmentPrefix() + "build/release/bench/train_throughput";
    for (int i = 1; i < argc; ++i)
        command += std::string(" ") + argv[i];
    std::printf("\ntrain_throughput (%zu samples, batch %d, %d threads, median of %d rounds)\n", o.samples, o.batch,
                threads, o.rounds);
    std::printf("  engine trainer : %8.0f samples/s\n", engineSps);
    std::printf("  plain loop     : %8.0f samples/s   (baseline)\n", plainSps);
    std::printf("  ratio          : %8.3f           (median of per-round engine/plain; goal >= 0.95)\n", ratio);
    std::printf("  ratio spread   : %.3f .. %.3f     (quartiles over %d rounds)\n", ratioQ1, ratioQ3, o.rounds);
    std::printf("  training step  : %8.1f GFLOP/s   (%.1f MFLOP per sample)\n", stepGflops, flopsPerSample / 1e6);
    std::printf("  2048^2 matmul  : %8.1f GFLOP/s   (step reaches %.0f %% of it)\n", mmGflops,
                100.0 * stepGflops / mmGflops);
    std::printf("  reproduce      : %s\n", command.c_str());

    if (!o.json.empty()) {
        nlohmann::json j{{"engine_samples_per_second", engineSps},
                         {"plain_samples_per_second", plainSps},
                         {"ratio", ratio},
                         {"ratios", ratios},
                         {"ratio_q1", ratioQ1},
                         {"ratio_q3", ratioQ3},
                         {"step_gflops", stepGflops},
                         {"matmul_gflops", mmGflops},
                         {"matmul_size", 2048},
                         {"flops_per_sample", flopsPerSample},
                         {"engine_runs", engineRuns},
                         {"plain_runs", plainRuns},
                         {"samples", o.samples},
                         {"batch", o.batch},
                         {"threads", threads},
                         {"blas_threads", engine::blasThreads()},
                         {"command", command}};
        engine::writeFileAtomically(o.json, j.dump(2) + "\n");
        std::printf("  json           : %s\n", o.json.c_str());
    }
    return 0;
}
