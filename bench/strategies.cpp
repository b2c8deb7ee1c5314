// bench/strategies: every strategy on the same cluster config and seed in one
// run (issue 3), the synapse design's ratios against the synchronous
// parameter server, every strategy's accuracy, and the engine's own cost per
// trained sample against the plain LibTorch loop, measured in the same run.
//
//   build/release/bench/synaptic-bench-strategies [--config FILE] [--steps N]
//       [--target X] [--seed N] [--eval-every-samples N] [--threads N]
//       [--strategies a,b,...] [--plain-samples N] [--json FILE]
// scripts/bench-strategies runs it and plots the report.
#include "plain_loop.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/tensor_data.h"
#include "core/engine/train_report.h"
#include "core/engine/trainer.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace synaptic;
using nlohmann::json;

namespace {

struct Options {
    engine::SimRunRequest run;
    std::size_t plainSamples = 12800;
    int plainRounds = 3; // before and after the strategies each
    std::string json;
    std::string commandLine;
};

bool parse(int argc, char **argv, Options &o) {
    o.run.configPath = "resources/default_cluster.json";
    o.run.stepsPerEdge = 300;
    o.run.targetAccuracy = 0.88;
    o.run.evalEverySamples = 15360;
    o.run.strategies = {"synaptic", "param_server", "allreduce", "diloco", "gossip"};
    for (int i = 0; i < argc; ++i) {
        if (i > 0)
            o.commandLine += ' ';
        o.commandLine += argv[i];
    }
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "strategies: %s needs a value\n", a.c_str());
            return false;
        }
        const std::string v = argv[++i];
        try {
            if (a == "--config") o.run.configPath = v;
            else if (a == "--steps") o.run.stepsPerEdge = std::stoull(v);
            else if (a == "--target") o.run.targetAccuracy = std::stod(v);
            else if (a == "--seed") o.run.seed = std::stoull(v);
            else if (a == "--eval-every-samples") o.run.evalEverySamples = std::stoull(v);
            else if (a == "--threads") o.run.threads = std::stoi(v);
            else if (a == "--plain-samples") o.plainSamples = std::stoul(v);
            else if (a == "--json") o.json = v;
            else if (a == "--strategies") {
                o.run.strategies.clear();
                for (std::size_t s = 0; s <= v.size();) {
                    const auto c = std::min(v.find(',', s), v.size());
                    o.run.strategies.push_back(v.substr(s, c - s));
                    s = c + 1;
                }
            } else {
                std::fprintf(stderr, "strategies: unknown option %s\n", a.c_str());
                return false;
            }
        } catch (const std::exception &) {
            std::fprintf(stderr, "strategies: %s expects a number, got '%s'\n", a.c_str(), v.c_str());
            return false;
        }
    }
    return true;
}

const engine::StrategyResult *find(const std::vector<engine::StrategyResult> &rs, const std::string &name) {
    for (const auto &r : rs)
        if (r.strategy == name)
            return &r;
    return nullptr;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    if (!parse(argc, argv, o))
        return 2;
    try {
        const auto config = engine::loadClusterConfig(o.run.configPath);
        at::set_num_threads(engine::resolveThreadCount(o.run.threads));
        const auto trainSet = data::loadFashionMnist(data::resolveDataDir(config.dataDir), data::Split::Train,
                                                     o.plainSamples);
        const auto plainData = engine::toTensors(trainSet, "cpu");
        std::vector<double> plain;
        auto measurePlain = [&] {
            for (int r = 0; r < o.plainRounds; ++r)
                plain.push_back(bench::plainLoopSamplesPerSecond(plainData, config.batchSize, config.learningRate,
                                                                 0.3, config.seed));
        };
        bench::plainLoopSamplesPerSecond(plainData, config.batchSize, config.learningRate, 0.3, config.seed); // warm-up
        measurePlain();
        std::printf("plain loop before: %.0f samples/s\n", median(plain));
        std::fflush(stdout);

        const auto results = engine::runStrategies(o.run, [](const engine::StrategyResult &r) {
            std::printf("%-13s accuracy %.4f  %llu samples  %.2f virtual s  %.1f s wall (%.1f s evaluating)\n",
                        r.strategy.c_str(), r.finalAccuracy, (unsigned long long)r.samples, r.virtualSeconds,
                        r.wallSeconds, r.evalWallSeconds);
            std::fflush(stdout);
        });
        measurePlain();
        const double plainSps = median(plain);
        const double plainSecondsPerSample = 1.0 / plainSps;

        std::printf("\n%s\n", engine::simResultTable(results).c_str());
        std::printf("engine cost (training wall per sample, evaluation excluded) against the plain loop "
                    "(%.0f samples/s, median of %zu passes of %zu samples, before and after):\n",
                    plainSps, plain.size(), o.plainSamples);
        json perStrategy = json::object();
        for (const auto &r : results) {
            const double perSample = r.samples ? r.trainWallSeconds / double(r.samples) : 0;
            std::printf("  %-13s %8.1f us/sample  %.3fx the plain loop\n", r.strategy.c_str(), perSample * 1e6,
                        perSample / plainSecondsPerSample);
            perStrategy[r.strategy] = {{"wall_us_per_sample", perSample * 1e6},
                                       {"ratio_to_plain_loop", perSample / plainSecondsPerSample}};
        }

        json goals = json::array();
        auto goal = [&](const std::string &what, double value, const std::string &op, double bound) {
            const bool ok = op == ">=" ? value >= bound : value <= bound;
            goals.push_back({{"goal", what}, {"value", value}, {"op", op}, {"bound", bound}, {"met", ok}});
            std::printf("  [%s] %-58s %10.3f %s %g\n", ok ? "met" : "NOT MET", what.c_str(), value, op.c_str(), bound);
        };
        std::printf("\ngoals (issue 3):\n");
        const auto *syn = find(results, "synaptic");
        const auto *ps = find(results, "param_server");
        if (syn && ps) {
            goal("synaptic accuracy minus param_server accuracy (pp)", 100 * (syn->finalAccuracy - ps->finalAccuracy),
                 ">=", -0.5);
            goal("center bytes: param_server / synaptic", double(ps->bytesToCenter) / double(std::max<std::uint64_t>(1, syn->bytesToCenter)), ">=", 100);
            goal("WAN bytes: param_server / synaptic", double(ps->wanBytes) / double(std::max<std::uint64_t>(1, syn->wanBytes)), ">=", 10);
            if (syn->timeToTargetSeconds && ps->timeToTargetSeconds)
                goal("virtual time to target: param_server / synaptic", *ps->timeToTargetSeconds / *syn->timeToTargetSeconds, ">=", 3);
            else
                std::printf("  [NOT MET] time to target: %s never reached %.2f\n",
                            syn->timeToTargetSeconds ? "param_server" : "synaptic", o.run.targetAccuracy);
            goal("synaptic wall per sample / plain loop", perStrategy["synaptic"]["ratio_to_plain_loop"].get<double>(), "<=", 1.15);
        }
        for (const auto &r : results)
            goal(r.strategy + " final accuracy", r.finalAccuracy, ">=", 0.85);

        if (!o.json.empty()) {
            json report = json::parse(engine::simReportJson(o.run, results));
            report["benchmark"] = {{"command", o.commandLine},
                                   {"plain_loop_samples_per_second", plainSps},
                                   {"plain_loop_runs", plain},
                                   {"plain_loop_samples", o.plainSamples},
                                   {"engine_cost", perStrategy},
                                   {"goals", goals}};
            engine::writeFileAtomically(o.json, report.dump(1) + "\n");
            std::printf("\nreport written to %s\n", o.json.c_str());
        }
        std::printf("reproduce: %s\n", o.commandLine.c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "strategies: %s\n", e.what());
        return 1;
    }
    return 0;
}
