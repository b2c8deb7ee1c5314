// bench/strategies: every strategy × codec point on one cluster config and
// scenario, over several seeds (issue 14), against the baselines a reviewer
// would pick (param_server, allreduce, hier_allreduce, diloco, hier_diloco,
// gossip); the goals of issues 3 and 14 checked on the seed means, and the
// engine's own cost per trained sample against the plain LibTorch loop.
//
//   build/release/bench/synaptic-bench-strategies [--config FILE] [--steps N]
//       [--strategies a,b,...] [--codecs c,d,...] [--seeds N] [--seed FIRST]
//       [--scenario default|straggler|noniid] [--target X]
//       [--eval-every-samples N] [--threads N] [--plain-samples N] [--json FILE] [--quiet]
//   synaptic-bench-strategies --from REPORT[,REPORT...] [--strategies ...] [--codecs ...] [--json FILE]
//
// Progress goes to stderr while it runs (a bar on a terminal, a line every
// few seconds otherwise: the run, seed, codec and strategy, and the running
// simulation's steps); --quiet: none. The results go to stdout.
//
// --from runs nothing: it judges the runs stored in earlier reports together
// (seeds run as separate processes, one per core), keeping those of the
// strategies and codecs named, if any are.
//
// Codec points (strategies_bench/codec_point.h): fp32, fp16, int8, topk[:F],
// mixed (fp16 inside regions, int8 to the center), mixed+zstd (with a zstd
// stage after the center's int8) or GRADIENTS/VALUES/CENTER (each codec may
// end in +zstd).
// Exit status: 0 every checked goal met; 3 a goal missed; 1 a run failed,
// or (--from) a report cannot be read or disagrees with the first; 2 bad
// arguments, or no stored run matches --strategies and --codecs. scripts/bench-strategies runs it and plots the report.
#include "bench_progress.h"
#include "plain_loop.h"
#include "strategies_bench/codec_point.h"
#include "strategies_bench/goals.h"
#include "strategies_bench/run_table.h"
#include "strategies_bench/stored_runs.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/allocator.h"
#include "core/engine/codec/zstd_frame.h"
#include "core/engine/compute_threads.h"
#include "core/engine/json_number.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/tasks/task_registry.h"
#include "core/engine/tensor_data.h"
#include "core/engine/train_report.h"
#include "core/engine/trainer.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace synaptic;
using nlohmann::json;

namespace {

struct Options {
    engine::SimRunRequest run;
    std::vector<std::string> codecs{"fp32"};
    int seeds = 3;
    std::uint64_t firstSeed = 1;
    std::string scenario = "default";
    std::size_t plainSamples = 12800;
    int plainRounds = 3; // before and after the strategies each
    std::string json;
    std::string commandLine;
    std::vector<std::string> from; // stored reports to judge instead of running
    bool strategiesGiven = false, codecsGiven = false;
    bool quiet = false; // --quiet: no progress on stderr
    nlohmann::json sourceCommands; // --from: the commands that made the stored runs
    std::vector<std::string> given; // every option on the command line
};

std::vector<std::string> splitList(const std::string &v) {
    std::vector<std::string> out;
    for (std::size_t s = 0; s <= v.size();) {
        const auto c = std::min(v.find(',', s), v.size());
        out.push_back(v.substr(s, c - s));
        s = c + 1;
    }
    return out;
}

bool parse(int argc, char **argv, Options &o) {
    o.run.configPath = "resources/default_cluster.json";
    o.run.stepsPerEdge = 300;
    o.run.targetAccuracy = 0.88;
    o.run.evalEverySamples = 15360;
    o.run.strategies = {"synaptic", "param_server", "allreduce", "hier_allreduce", "diloco", "hier_diloco", "gossip"};
    for (int i = 0; i < argc; ++i) {
        if (i > 0)
            o.commandLine += ' ';
        o.commandLine += argv[i];
    }
    // An environment that fixes OpenBLAS's pool changes the bits: the line
    // names it, or it would not reproduce the run.
    o.commandLine = engine::blasEnvironmentPrefix() + o.commandLine;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quiet") {
            o.quiet = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "strategies: %s needs a value\n", a.c_str());
            return false;
        }
        const std::string v = argv[++i];
        o.given.push_back(a);
        try {
            if (a == "--config") o.run.configPath = v;
            else if (a == "--steps") o.run.stepsPerEdge = std::stoull(v);
            else if (a == "--target") o.run.targetAccuracy = std::stod(v);
            else if (a == "--seeds") o.seeds = std::max(1, std::stoi(v));
            else if (a == "--seed") o.firstSeed = std::stoull(v);
            else if (a == "--eval-every-samples") o.run.evalEverySamples = std::stoull(v);
            else if (a == "--threads") o.run.threads = std::stoi(v);
            else if (a == "--plain-samples") o.plainSamples = std::stoul(v);
            else if (a == "--json") o.json = v;
            else if (a == "--strategies") o.run.strategies = splitList(v), o.strategiesGiven = true;
            else if (a == "--codecs") o.codecs = splitList(v), o.codecsGiven = true;
            else if (a == "--from") o.from = splitList(v);
            else if (a == "--scenario") {
                if (v != "default" && v != "straggler" && v != "noniid") {
                    std::fprintf(stderr, "strategies: --scenario must be default, straggler or noniid, got '%s'\n", v.c_str());
                    return false;
                }
                o.scenario = v;
            } else {
                std::fprintf(stderr, "strategies: unknown option %s\n", a.c_str());
                return false;
            }
        } catch (const std::exception &) {
            std::fprintf(stderr, "strategies: %s expects a number, got '%s'\n", a.c_str(), v.c_str());
            return false;
        }
    }
    if (!o.from.empty())
        for (const auto &a : o.given)
            if (a != "--from" && a != "--strategies" && a != "--codecs" && a != "--json") {
                // The stored runs were made with their own settings; one given
                // here would be ignored, not applied.
                std::fprintf(stderr, "strategies: --from takes only --strategies, --codecs and --json, not %s\n", a.c_str());
                return false;
            }
    for (const auto &s : o.run.strategies)
        if (std::find(engine::kStrategies.begin(), engine::kStrategies.end(), s) == engine::kStrategies.end()) {
            std::fprintf(stderr, "strategies: unknown strategy '%s'\n", s.c_str());
            return false;
        }
    for (const auto &c : o.codecs) {
        try {
            bench::codecPoint(c);
        } catch (const std::invalid_argument &e) {
            std::fprintf(stderr, "strategies: --codecs: %s\n", e.what());
            return false;
        }
    }
    return true;
}

// The scenarios of issue 14 §7 as edits of the loaded config.
void applyScenario(const std::string &scenario, engine::ClusterConfig &c) {
    if (scenario == "noniid") {
        // Label skew by edge, as when regions are real places.
        c.partition = "dirichlet";
        c.dirichletAlpha = 0.3;
    } else if (scenario == "straggler") {
        // One region far away on a thin pipe, one edge at a third of the speed.
        const std::string slow = c.regions.back().name;
        const engine::LinkSpec thin{0.120, 20e6, 0.0, true};
        std::erase_if(c.centerLinks, [&](const auto &l) { return l.region == slow; });
        std::erase_if(c.regionLinks, [&](const auto &l) { return l.a == slow || l.b == slow; });
        c.centerLinks.push_back({slow, thin});
        for (const auto &r : c.regions)
            if (r.name != slow)
                c.regionLinks.push_back({r.name, slow, thin});
        c.regions.front().edges.front().gflops /= 3;
    }
}

std::optional<std::uint64_t> wanAtTarget(const engine::StrategyResult &r) {
    for (const auto &p : r.curve)
        if (p.accuracy >= r.targetAccuracy)
            return p.wanBytes;
    return std::nullopt;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The seed means per cell, the goals on them and the report: the same for
// fresh runs and for runs read back with --from.
int judge(const Options &o, const std::vector<bench::BenchRun> &runs, json runsJson, const std::vector<double> &plain,
          const std::map<std::string, std::pair<double, std::uint64_t>> &trainWall) {
    std::set<std::uint64_t> seeds;
    std::vector<std::string> codecs;
    for (const auto &r : runs) {
        seeds.insert(r.seed);
        if (std::find(codecs.begin(), codecs.end(), r.codec) == codecs.end())
            codecs.push_back(r.codec);
    }
    const auto cells = bench::summarize(runs);
    // Seeds per cell: a merge (--from) may hold cells over different seeds,
    // whose means the goals then compare; said here, not hidden.
    std::map<std::pair<std::string, std::string>, std::vector<std::uint64_t>> cellSeeds;
    for (const auto &r : runs)
        cellSeeds[{r.strategy, r.codec}].push_back(r.seed);
    for (auto &[cell, list] : cellSeeds)
        std::sort(list.begin(), list.end());
    bool uneven = false;
    for (const auto &[cell, list] : cellSeeds)
        uneven = uneven || list != cellSeeds.begin()->second;
    std::string seedList;
    for (const auto seed : seeds)
        seedList += (seedList.empty() ? "" : ",") + std::to_string(seed);
    std::printf("\n%s scenario, seed(s) %s, %llu steps per edge; means over seeds (accuracy min..max):\n",
                o.scenario.c_str(), seedList.c_str(), (unsigned long long)o.run.stepsPerEdge);
    if (uneven)
        std::printf("note: the cells ran over different seeds (column 'seeds'); their means are compared as they are\n");
    std::printf("%-14s %-16s %-6s %8s %15s %11s %11s %11s %11s %12s\n", "strategy", "codec", "seeds", "accuracy",
                "min..max", "to target s", "center MB", "WAN MB", "total MB", "WAN MB@tgt");
    json cellsJson = json::array();
    for (const auto &c : cells) {
        char tt[32] = "never", wt[32] = "never";
        if (c.timeToTargetMean)
            std::snprintf(tt, sizeof tt, "%.1f", *c.timeToTargetMean);
        if (c.wanToTargetMean)
            std::snprintf(wt, sizeof wt, "%.2f", *c.wanToTargetMean / 1e6);
        const auto &seedsOfCell = cellSeeds[{c.strategy, c.codec}];
        std::string seedText;
        for (const auto seed : seedsOfCell)
            seedText += (seedText.empty() ? "" : ",") + std::to_string(seed);
        std::printf("%-14s %-16s %-6s %8.4f %7.4f..%.4f %11s %11.3f %11.2f %11.2f %12s\n", c.strategy.c_str(),
                    c.codec.c_str(), seedText.c_str(), c.accuracyMean, c.accuracyMin, c.accuracyMax, tt, c.centerMean / 1e6,
                    c.wanMean / 1e6, c.totalMean / 1e6, wt);
        cellsJson.push_back({{"strategy", c.strategy}, {"codec", c.codec}, {"runs", c.runs}, {"seeds", seedsOfCell},
                             {"accuracy_mean", c.accuracyMean}, {"accuracy_min", c.accuracyMin},
                             {"accuracy_max", c.accuracyMax}, {"accuracy_std", c.accuracyStd},
                             {"time_to_target_s_mean", engine::nullable(c.timeToTargetMean)},
                             {"wan_bytes_to_target_mean", engine::nullable(c.wanToTargetMean)},
                             {"bytes_to_center_mean", c.centerMean}, {"wan_bytes_mean", c.wanMean},
                             {"total_bytes_mean", c.totalMean}});
    }

    json perStrategy = json::object();
    if (!plain.empty()) {
        const double plainSps = median(plain);
        std::printf("\nengine cost (training wall per sample at %s, evaluation excluded) against the plain loop "
                    "(%.0f samples/s, median of %zu passes of %zu samples, before and after):\n",
                    o.codecs.front().c_str(), plainSps, plain.size(), o.plainSamples);
        for (const auto &[name, ws] : trainWall) {
            const double perSample = ws.second ? ws.first / double(ws.second) : 0;
            std::printf("  %-14s %8.1f us/sample  %.3fx the plain loop\n", name.c_str(), perSample * 1e6,
                        perSample * plainSps);
            perStrategy[name] = {{"wall_us_per_sample", perSample * 1e6}, {"ratio_to_plain_loop", perSample * plainSps}};
        }
    }

    std::vector<std::string> skipped;
    auto goals = bench::scenarioGoals(o.scenario, cells, skipped);
    const bool synapticRan = std::any_of(runs.begin(), runs.end(), [](const auto &r) { return r.strategy == "synaptic"; });
    if (!perStrategy.contains("synaptic") && synapticRan)
        skipped.push_back("synaptic wall per sample / plain loop (issue 3): no plain-loop measurement in this run");
    if (perStrategy.contains("synaptic"))
        goals.push_back({"synaptic wall per sample / plain loop (issue 3)",
                         perStrategy["synaptic"]["ratio_to_plain_loop"].get<double>(), "<=", 1.15,
                         perStrategy["synaptic"]["ratio_to_plain_loop"].get<double>() <= 1.15});
    bool allMet = true;
    json goalsJson = json::array();
    std::printf("\ngoals (issue 14, %s scenario, seed means):\n", o.scenario.c_str());
    for (const auto &g : goals) {
        allMet = allMet && g.met;
        std::printf("  [%s] %-78s %10.3f %s %g\n", g.met ? "met" : "NOT MET", g.what.c_str(), g.value, g.op.c_str(), g.bound);
        goalsJson.push_back({{"goal", g.what}, {"value", g.value}, {"op", g.op}, {"bound", g.bound}, {"met", g.met}});
    }
    for (const auto &s : skipped)
        std::printf("  [skipped] %s\n", s.c_str());

    if (!o.json.empty()) {
        json report = {
            {"config", o.run.configPath},
            {"scenario", o.scenario},
            {"seeds", seeds.size()},
            {"first_seed", seeds.empty() ? o.firstSeed : *seeds.begin()},
            {"seed_list", seeds},
            {"steps_per_edge", o.run.stepsPerEdge},
            {"target_accuracy", o.run.targetAccuracy},
            {"eval_every_samples", o.run.evalEverySamples},
            {"codecs", codecs},
            {"threads", o.from.empty() ? json(at::get_num_threads()) : json(nullptr)},
            // OpenBLAS's pool: the bits follow it (core/engine/compute_threads.h)
            {"blas_threads", o.from.empty() ? json(engine::blasThreads()) : json(nullptr)},
            {"runs", runsJson},
            {"cells", cellsJson},
            {"goals", goalsJson},
            {"skipped_goals", skipped},
            {"benchmark", {{"command", o.commandLine},
                           // +zstd frame sizes, and so link times, follow it (README, codecs)
                           {"zstd_version", engine::zstdVersion()},
                           {"plain_loop_samples_per_second", plain.empty() ? json(nullptr) : json(median(plain))},
                           {"plain_loop_runs", plain},
                           {"engine_cost", perStrategy}}},
        };
        if (!o.from.empty())
            report["benchmark"]["merged_from"] = {{"reports", o.from}, {"commands", o.sourceCommands}};
        engine::writeFileAtomically(o.json, report.dump(1) + "\n");
        std::printf("\nreport written to %s\n", o.json.c_str());
    }
    std::printf("reproduce: %s\n", o.commandLine.c_str());
    return allMet ? 0 : 3;
}

// --from: the runs of earlier reports, judged together.
int judgeStored(Options o) {
    auto stored = bench::loadStoredRuns(o.from);
    std::vector<bench::BenchRun> runs;
    json runsJson = json::array();
    auto kept = [](const std::vector<std::string> &list, const std::string &name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    for (std::size_t i = 0; i < stored.runs.size(); ++i) {
        const auto &r = stored.runs[i];
        if ((o.strategiesGiven && !kept(o.run.strategies, r.strategy)) || (o.codecsGiven && !kept(o.codecs, r.codec)))
            continue;
        runs.push_back(r);
        runsJson.push_back(stored.runsJson[i]);
    }
    if (runs.empty()) {
        std::fprintf(stderr, "strategies: --from: %s\n", stored.runs.empty() ? "the reports hold no runs"
                                                                              : "no stored run matches --strategies and --codecs");
        return 2;
    }
    o.scenario = stored.scenario;
    o.run.configPath = stored.config;
    o.run.stepsPerEdge = stored.stepsPerEdge;
    o.run.targetAccuracy = stored.targetAccuracy;
    o.run.evalEverySamples = stored.evalEverySamples;
    o.sourceCommands = stored.commands;
    return judge(o, runs, std::move(runsJson), {}, {});
}

} // namespace

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    Options o;
    if (!parse(argc, argv, o))
        return 2;
    try {
        if (!o.from.empty())
            return judgeStored(o);
        const auto config = engine::loadClusterConfig(o.run.configPath);
        // Its goals, scenarios and plain-loop baseline are Fashion-MNIST's.
        if (config.task != engine::kDefaultTask) {
            std::fprintf(stderr, "strategies: %s: task \"%s\": this benchmark measures %s (run other tasks with "
                                 "synaptic-node sim --compare)\n",
                         o.run.configPath.c_str(), config.task.c_str(), engine::kDefaultTask);
            return 2;
        }
        engine::setComputeThreads(engine::resolveThreadCount(o.run.threads));
        // A run: one strategy at one seed and codec point.
        bench::BenchProgress progress("strategies", o.quiet,
                                      std::size_t(o.seeds) * o.codecs.size() * o.run.strategies.size());
        std::vector<double> plain;
        engine::TensorSet plainData;
        auto measurePlain = [&] {
            for (int r = 0; r < o.plainRounds && o.plainSamples > 0; ++r)
                plain.push_back(bench::plainLoopSamplesPerSecond(plainData, config.batchSize, config.learningRate,
                                                                 0.3, config.seed));
        };
        if (o.plainSamples > 0) {
            progress.phase("measuring the plain loop (before the strategies)");
            const auto trainSet = data::loadFashionMnist(data::resolveDataDir(config.dataDir), data::Split::Train,
                                                         o.plainSamples);
            plainData = engine::toTensors(trainSet, "cpu");
            bench::plainLoopSamplesPerSecond(plainData, config.batchSize, config.learningRate, 0.3, config.seed); // warm-up
            measurePlain();
            progress.clear();
            std::printf("plain loop before: %.0f samples/s\n", median(plain));
        }

        std::vector<bench::BenchRun> runs;
        json runsJson = json::array();
        std::map<std::string, std::pair<double, std::uint64_t>> trainWall; // strategy -> wall, samples
        for (std::uint64_t seed = o.firstSeed; seed < o.firstSeed + std::uint64_t(o.seeds); ++seed) {
            for (const auto &codec : o.codecs) {
                engine::SimRunRequest req = o.run;
                req.seed = seed;
                req.editConfig = [&](engine::ClusterConfig &c) {
                    applyScenario(o.scenario, c);
                    bench::applyCodecPoint(codec, c.codecs);
                };
                const std::string what = "seed " + std::to_string(seed) + ", " + codec;
                progress.phase(what + ": loading the config and data");
                const auto results = engine::runStrategies(req, [&](const engine::StrategyResult &r) {
                    progress.clear();
                    std::printf("seed %llu %-9s %-14s accuracy %.4f  to target %s  center %.2f MB  WAN %.2f MB  total %.2f MB  %.1f s wall\n",
                                (unsigned long long)seed, codec.c_str(), r.strategy.c_str(), r.finalAccuracy,
                                r.timeToTargetSeconds ? (std::to_string(*r.timeToTargetSeconds) + " s").c_str() : "never",
                                r.bytesToCenter / 1e6, r.wanBytes / 1e6, r.totalBytes / 1e6, r.wallSeconds);
                    std::fflush(stdout);
                }, progress.simHooks(what));
                for (const auto &r : results) {
                    bench::BenchRun b;
                    b.strategy = r.strategy;
                    b.codec = codec;
                    b.scenario = o.scenario;
                    b.seed = seed;
                    b.finalAccuracy = r.finalAccuracy;
                    b.timeToTarget = r.timeToTargetSeconds;
                    b.wanToTarget = wanAtTarget(r);
                    b.bytesToCenter = r.bytesToCenter;
                    b.wanBytes = r.wanBytes;
                    b.totalBytes = r.totalBytes;
                    b.virtualSeconds = r.virtualSeconds;
                    b.wallSeconds = r.wallSeconds;
                    runs.push_back(b);
                    auto entry = json::parse(engine::strategyResultJson(r));
                    entry["codec"] = codec;
                    entry["seed"] = seed;
                    entry["scenario"] = o.scenario;
                    entry["wan_bytes_to_target"] = b.wanToTarget ? json(*b.wanToTarget) : json(nullptr);
                    runsJson.push_back(entry);
                    if (codec == o.codecs.front()) {
                        trainWall[r.strategy].first += r.trainWallSeconds;
                        trainWall[r.strategy].second += r.samples;
                    }
                }
            }
        }
        if (o.plainSamples > 0)
            progress.phase("measuring the plain loop (after the strategies)");
        measurePlain();
        progress.finish();

        return judge(o, runs, std::move(runsJson), plain, trainWall);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "strategies: %s\n", e.what());
        return 1;
    }
}
