// bench/faults: the fault matrix of issue 15 §4. Every fault of the
// catalogue (faults_bench/fault_catalog.cpp) × every strategy it applies
// to × several seeds, each run checked by every invariant over its audit
// history (core/engine/audit/invariants.h) and compared with the
// fault-free run of the same strategy and seed: final accuracy on the
// whole test set, time to recover, bytes lost.
//
//   build/dev/bench/synaptic-bench-faults [--config FILE] [--steps N]
//       [--seeds N] [--first-seed S] [--faults a,b,...]
//       [--strategies a,b,...] [--quick] [--threads N] [--json FILE] [--quiet]
//
// --first-seed S runs seeds S, S+1, ... (default: the config's seed), so
// the seeds of a long matrix can run as separate processes.
//
// Runs train a fixed number of steps per edge, so a fault costs time, not
// samples: the accuracy comparison asks whether the fault corrupted the
// model, and recovery_s what it cost in time. Progress goes to stderr (the
// run, fault, strategy, seed and the running simulation's steps; --quiet:
// none), the table to stdout. --quick: the CI subset (one
// seed, fewer faults, synaptic only, shorter runs).
// Exit status: 0 every invariant held in every run and every synaptic
// accuracy within the goal where training goes on (baselines are shown,
// not held to it); 3 a goal missed; 1 a run
// failed; 2 bad arguments.
#include "bench_progress.h"
#include "faults_bench/fault_catalog.h"

#include "core/engine/allocator.h"
#include "core/engine/audit/invariants.h"
#include "core/engine/compute_threads.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace synaptic;
using namespace synaptic::engine;
using namespace synaptic::bench;
using nlohmann::json;

namespace {

constexpr double kAccuracyGoalPoints = 1.0; // issue 15: within 1 pp of the fault-free run

struct Options {
    std::string config = "tests/data/tiny_cluster.json";
    std::uint64_t steps = 120;
    int seeds = 3;
    std::optional<std::uint64_t> firstSeed; // unset: the config's seed
    std::vector<std::string> faults;     // empty: every fault
    std::vector<std::string> strategies; // empty: every strategy a fault applies to
    bool quick = false;
    bool quiet = false; // --quiet: no progress on stderr
    int threads = 2;
    std::string json;
    std::string commandLine;
};

std::vector<std::string> splitList(const std::string &v) {
    std::vector<std::string> out;
    for (std::size_t s = 0; s <= v.size();) {
        const auto c = std::min(v.find(',', s), v.size());
        if (c > s)
            out.push_back(v.substr(s, c - s));
        s = c + 1;
    }
    return out;
}

int usage(const char *why) {
    std::fprintf(stderr,
                 "synaptic-bench-faults: %s\nusage: synaptic-bench-faults [--config FILE] [--steps N] [--seeds N] "
                 "[--first-seed S] [--faults a,b] [--strategies a,b] [--quick] [--threads N] [--json FILE] "
                 "[--quiet]\n",
                 why);
    return 2;
}

struct RunOutcome {
    StrategyResult result;
    std::vector<Violation> violations;
    std::size_t auditEvents = 0;
    double recoverySeconds = NAN; // NaN: not measured (no fault end, or no audit history)
    bool recovered = true;
};

// From the fault's end until every edge that had stopped sending window
// gradients by then (its last send before the end is more than three of
// its usual intervals old: cut off, read-only, dead) sends again; 0 when
// none had stopped. Synaptic only: its audit history holds every send.
void measureRecovery(const std::vector<AuditEvent> &history, const FaultWindow &w, RunOutcome &out) {
    std::map<int, std::vector<double>> sends; // per edge node, in time order (one per window)
    for (const auto &e : history)
        if (e.kind == AuditEvent::Kind::Send && (sends[e.node].empty() || sends[e.node].back() != e.time))
            sends[e.node].push_back(e.time);
    double worst = 0;
    for (const auto &[node, times] : sends) {
        std::vector<double> gaps;
        for (std::size_t i = 1; i < times.size() && times[i] < w.start; ++i)
            gaps.push_back(times[i] - times[i - 1]);
        if (gaps.empty())
            continue;
        std::nth_element(gaps.begin(), gaps.begin() + std::ptrdiff_t(gaps.size() / 2), gaps.end());
        const double usual = gaps[gaps.size() / 2];
        const auto firstAfter = std::lower_bound(times.begin(), times.end(), w.end);
        const double lastBefore = firstAfter == times.begin() ? 0.0 : *(firstAfter - 1);
        if (w.end - lastBefore <= 3 * usual)
            continue; // still training when the fault ended
        if (firstAfter == times.end())
            out.recovered = false; // never trained again
        else
            worst = std::max(worst, *firstAfter - w.end);
    }
    out.recoverySeconds = worst;
}

// `hooks` (the bench's progress) are called as sim_runner calls them.
RunOutcome runOne(const ClusterConfig &base, const SimData &data, const std::string &strategy, std::uint64_t seed,
                  std::uint64_t steps, const FaultScenario *fault, const FaultWindow &window,
                  const SimRunHooks &hooks) {
    ClusterConfig config = base;
    config.strategy = strategy;
    config.seed = seed;
    SimOptions o;
    o.stepsPerEdge = steps;
    o.finalFullEvaluation = true;
    RunOutcome out;
    std::vector<AuditEvent> history;
    o.observer = [&history](const SimEvent &e) {
        if (const auto *a = std::get_if<AuditEvent>(&e))
            history.push_back(*a);
    };
    if (hooks.prepare)
        hooks.prepare(config, o);
    Simulation sim(config, data.train, data.trainLabels, data.test, o);
    struct Leaving { // the Simulation goes away: after finished, or because its run threw
        const SimRunHooks &hooks;
        ~Leaving() {
            if (hooks.leaving)
                hooks.leaving();
        }
    } leaving{hooks};
    if (fault)
        fault->inject(sim, window);
    if (hooks.started)
        hooks.started(config, o, sim);
    out.result = sim.run();
    if (hooks.finished)
        hooks.finished(out.result);
    out.auditEvents = history.size();
    out.violations = checkInvariants(history);
    if (fault && fault->heals && !history.empty())
        measureRecovery(history, window, out);
    return out;
}

json violationsJson(const std::vector<Violation> &v) {
    json out = json::array();
    for (std::size_t i = 0; i < v.size() && i < 20; ++i)
        out.push_back({{"invariant", v[i].invariant},
                       {"time", v[i].time},
                       {"node", v[i].node},
                       {"shard", v[i].shard},
                       {"detail", describeViolation(v[i])}});
    return out;
}

} // namespace

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    Options o;
    o.commandLine = synaptic::engine::blasEnvironmentPrefix(); // the bits follow OpenBLAS's pool
    for (int i = 0; i < argc; ++i)
        o.commandLine += (i ? " " : "") + std::string(argv[i]);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::invalid_argument(a + " needs a value");
            return argv[++i];
        };
        try {
            if (a == "--config") o.config = value();
            else if (a == "--steps") o.steps = std::stoull(value());
            else if (a == "--seeds") o.seeds = std::stoi(value());
            else if (a == "--first-seed") o.firstSeed = std::stoull(value());
            else if (a == "--faults") o.faults = splitList(value());
            else if (a == "--strategies") o.strategies = splitList(value());
            else if (a == "--quick") o.quick = true;
            else if (a == "--quiet") o.quiet = true;
            else if (a == "--threads") o.threads = std::stoi(value());
            else if (a == "--json") o.json = value();
            else return usage(("unknown option " + a).c_str());
        } catch (const std::exception &e) {
            return usage(e.what());
        }
    }
    if (o.seeds < 1 || o.steps < 10)
        return usage("--seeds must be at least 1 and --steps at least 10");
    if (o.quick) {
        o.seeds = 1;
        o.steps = std::min<std::uint64_t>(o.steps, 80);
        if (o.faults.empty())
            o.faults = quickFaults();
        if (o.strategies.empty())
            o.strategies = {"synaptic"};
    }
    std::vector<const FaultScenario *> faults;
    for (const auto &f : faultCatalog())
        if (o.faults.empty() || std::find(o.faults.begin(), o.faults.end(), f.name) != o.faults.end())
            faults.push_back(&f);
    if (faults.size() != (o.faults.empty() ? faultCatalog().size() : o.faults.size()))
        return usage("--faults names a fault the catalogue does not have");
    engine::setComputeThreads(o.threads);

    // A run: one simulation, a fault-free one per strategy and seed included.
    auto selected = [&](const std::string &strategy) {
        return o.strategies.empty() || std::find(o.strategies.begin(), o.strategies.end(), strategy) != o.strategies.end();
    };
    std::size_t runCount = 0;
    {
        std::set<std::string> withClean;
        for (const auto *fault : faults)
            for (const auto &strategy : fault->strategies)
                if (selected(strategy)) {
                    ++runCount;
                    withClean.insert(strategy);
                }
        runCount = (runCount + withClean.size()) * std::size_t(o.seeds);
    }
    BenchProgress progress("faults", o.quiet, runCount);
    progress.phase("loading the config and data");

    ClusterConfig config;
    SimData data;
    try {
        config = loadClusterConfig(o.config);
        data = loadSimData(config, "cpu");
    } catch (const std::exception &e) {
        progress.line(std::string("synaptic-bench-faults: ") + e.what());
        return 1;
    }
    // The fault spans the middle of the fault-free run's virtual time.
    std::map<std::pair<std::string, std::uint64_t>, RunOutcome> clean;
    json scenarios = json::array();
    bool goalsMet = true;
    progress.clear();
    std::printf("%-18s %-13s %4s %-10s %9s %9s %8s %10s %11s\n", "fault", "strategy", "seed", "invariants",
                "accuracy", "faultfree", "delta_pp", "recovery_s", "bytes_lost");
    for (int s = 0; s < o.seeds; ++s) {
        const std::uint64_t seed = o.firstSeed.value_or(config.seed) + std::uint64_t(s);
        for (const auto *fault : faults) {
            for (const auto &strategy : fault->strategies) {
                if (!selected(strategy))
                    continue;
                try {
                    auto &base = clean[{strategy, seed}];
                    if (base.result.strategy.empty()) {
                        base = runOne(config, data, strategy, seed, o.steps, nullptr, {},
                                      progress.simHooks("seed " + std::to_string(seed) + ", fault-free"));
                        if (!base.violations.empty()) {
                            goalsMet = false;
                            progress.clear();
                            std::printf("fault-free %s seed %llu: %s\n", strategy.c_str(),
                                        (unsigned long long)seed, describeViolation(base.violations[0]).c_str());
                        }
                    }
                    const double span = base.result.virtualSeconds;
                    const FaultWindow window{0.3 * span, 0.55 * span};
                    const auto run = runOne(config, data, strategy, seed, o.steps, fault, window,
                                            progress.simHooks("seed " + std::to_string(seed) + ", " + fault->name));
                    const bool audited = run.auditEvents > 0;
                    const bool held = run.violations.empty();
                    const double delta = 100.0 * (run.result.finalAccuracy - base.result.finalAccuracy);
                    // Training goes on in every fault here (a cut-off part trains again after the
                    // heal, a killed node after its revive); the table says so per row.
                    const bool trainingGoesOn = run.result.stoppedEarly.empty();
                    // The goal is Synaptic's promise (docs/RELIABILITY.md). The
                    // baselines were not built to it (no durable state, no
                    // leases): their rows show what the same fault costs them,
                    // and are not held to the goal.
                    const bool heldToGoal = strategy == "synaptic";
                    const bool accuracyOk = !trainingGoesOn || !heldToGoal || delta >= -kAccuracyGoalPoints;
                    // Every fault here ends (a heal, a revive, or a slowdown that
                    // never stops training): a synaptic run that stalls
                    // (stopped with exchanges that never completed) is a liveness
                    // failure, not a place where training cannot go on.
                    const bool live = trainingGoesOn || !heldToGoal;
                    goalsMet = goalsMet && held && accuracyOk && run.recovered && live;
                    progress.clear();
                    std::printf("%-18s %-13s %4llu %-10s %9.4f %9.4f %+8.2f %10s %11llu%s\n", fault->name.c_str(),
                                strategy.c_str(), (unsigned long long)seed,
                                !audited ? "n/a" : held ? "held" : "VIOLATED", run.result.finalAccuracy,
                                base.result.finalAccuracy, delta,
                                std::isnan(run.recoverySeconds) ? "-"
                                : run.recovered ? std::to_string(run.recoverySeconds).substr(0, 6).c_str()
                                                : "never",
                                (unsigned long long)run.result.bytesLost,
                                !live                                ? "  (stalled: stopped early)"
                                : !accuracyOk                        ? "  (accuracy goal missed)"
                                : !heldToGoal && delta < -kAccuracyGoalPoints ? "  (baseline, not held to the goal)"
                                                                      : "");
                    for (std::size_t i = 0; i < run.violations.size() && i < 3; ++i)
                        std::printf("    %s\n", describeViolation(run.violations[i]).c_str());
                    scenarios.push_back(
                        {{"fault", fault->name},
                         {"what", fault->what},
                         {"strategy", strategy},
                         {"seed", seed},
                         {"fault_start_s", window.start},
                         {"fault_end_s", fault->heals ? json(window.end) : json(nullptr)},
                         {"invariants_checked", audited},
                         {"invariants_held", audited ? json(held) : json(nullptr)}, // null: no audit history
                         {"violations", violationsJson(run.violations)},
                         {"final_accuracy", run.result.finalAccuracy},
                         {"fault_free_accuracy", base.result.finalAccuracy},
                         {"accuracy_delta_pp", delta},
                         {"training_goes_on", trainingGoesOn},
                         {"held_to_accuracy_goal", heldToGoal},
                         {"recovery_s", std::isnan(run.recoverySeconds) || !run.recovered ? json(nullptr)
                                                                                             : json(run.recoverySeconds)},
                         {"recovered", run.recovered},
                         {"bytes_lost", run.result.bytesLost},
                         {"messages_dropped", run.result.messagesDropped},
                         {"messages_duplicated", run.result.messagesDuplicated},
                         {"contributions_lost_in_crash", run.result.contributionsLostInCrash},
                         {"contributions_rolled_back", run.result.contributionsRolledBack},
                         {"merges_lost_in_crash", run.result.mergesLostInCrash},
                         {"virtual_seconds", run.result.virtualSeconds},
                         {"wall_seconds", run.result.wallSeconds}});
                } catch (const std::exception &e) {
                    progress.line("synaptic-bench-faults: " + fault->name + " / " + strategy + " / seed " +
                                  std::to_string(seed) + " failed: " + e.what());
                    return 1;
                }
                std::fflush(stdout);
            }
        }
    }
    progress.finish();
    // Per fault and strategy over the seeds: the table docs/RELIABILITY.md keeps.
    struct Cell {
        int runs = 0, held = 0, audited = 0;
        double deltaSum = 0, deltaMin = 1e9, deltaMax = -1e9, recoverySum = 0;
        int recoveries = 0;
        std::uint64_t bytesLost = 0;
    };
    std::vector<std::pair<std::string, Cell>> cells;
    for (const auto &s : scenarios) {
        const std::string key = s["fault"].get<std::string>() + " / " + s["strategy"].get<std::string>();
        auto it = std::find_if(cells.begin(), cells.end(), [&](const auto &c) { return c.first == key; });
        if (it == cells.end())
            it = cells.insert(cells.end(), {key, Cell{}});
        Cell &c = it->second;
        ++c.runs;
        c.audited += s["invariants_checked"].get<bool>();
        c.held += s["invariants_held"].is_boolean() && s["invariants_held"].get<bool>();
        const double d = s["accuracy_delta_pp"].get<double>();
        c.deltaSum += d;
        c.deltaMin = std::min(c.deltaMin, d);
        c.deltaMax = std::max(c.deltaMax, d);
        if (s["recovery_s"].is_number()) {
            c.recoverySum += s["recovery_s"].get<double>();
            ++c.recoveries;
        }
        c.bytesLost += s["bytes_lost"].get<std::uint64_t>();
    }
    std::printf("\n| fault / strategy | invariants held | accuracy vs fault-free, pp: mean (min..max) | recovery s (mean) "
                "| bytes lost (mean) |\n| --- | --- | --- | --- | --- |\n");
    for (const auto &[key, c] : cells) {
        char rec[32] = "-";
        if (c.recoveries)
            std::snprintf(rec, sizeof rec, "%.2f", c.recoverySum / c.recoveries);
        std::printf("| %s | %s | %+.2f (%+.2f..%+.2f) | %s | %.1f MB |\n", key.c_str(),
                    c.audited == 0 ? "n/a" : (std::to_string(c.held) + "/" + std::to_string(c.runs)).c_str(),
                    c.deltaSum / c.runs, c.deltaMin, c.deltaMax, rec, double(c.bytesLost) / c.runs / 1e6);
    }
    std::set<std::string> types;
    for (const auto &s : scenarios)
        if (s["fault"] != "control")
            types.insert(s["fault"].get<std::string>());
    std::printf("%zu runs, %zu fault types, %d seed(s); goals %s\nreproduce: %s\n", scenarios.size(), types.size(),
                o.seeds, goalsMet ? "met" : "MISSED", o.commandLine.c_str());
    if (!o.json.empty()) {
        const json report = {{"command", o.commandLine},
                             {"threads", std::max(1, o.threads)},
                             {"blas_threads", engine::blasThreads()},
                             {"config", o.config},
                             {"steps_per_edge", o.steps},
                             {"seeds", o.seeds},
                             {"first_seed", o.firstSeed.value_or(config.seed)},
                             {"accuracy_goal_pp", kAccuracyGoalPoints},
                             {"invariants", invariantNames()},
                             {"goals_met", goalsMet},
                             {"scenarios", scenarios}};
        std::ofstream(o.json) << report.dump(2) << "\n";
    }
    return goalsMet ? 0 : 3;
}
