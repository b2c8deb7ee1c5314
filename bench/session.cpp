// bench/session: what recording a session costs and what a recording gives
// (issue 5), in one run:
//   1. overhead: the default cluster config trained for a fixed number of
//      steps per edge, plain and with a SessionRecorder attached, in
//      adjacent pairs (ABBA order, same seed: the event stream is identical,
//      checked by its hash). The baseline is the plain run of the same pair.
//   2. size: one recorded run of the default config for `--size-seconds`
//      virtual seconds at the default telemetry rate (default SimOptions and
//      RecorderOptions): bytes per simulated hour, events per virtual second
//      and what a seek through this real-speed stream costs.
//   3. seeks: a real 3600-virtual-second recording of the default config
//      with every edge's compute made `--slowdown` times slower (so an hour
//      of virtual time takes minutes here; telemetry per virtual second is
//      the engine's own), then random SessionFile::stateAt() seeks into it,
//      each checked against the stream read whole.
//   3b. the same seeks into an hour of the default config's own event
//      density (part 2's steady window tiled over the hour, fed to a
//      recorder as fast as it writes): what a machine faster than real time
//      would record, and the writer thread's CPU per event.
//
//   build/release/bench/synaptic-bench-session [--config FILE] [--threads N]
//       [--steps N] [--pairs N] [--size-seconds S] [--hour-seconds S]
//       [--slowdown F] [--hour-test-subset N] [--seeks N] [--seek-seed N]
//       [--dir DIR] [--keep] [--quick] [--json FILE] [--quiet]
//
// Progress goes to stderr (which run or phase, and the hour recording's
// steps as it is made); --quiet: none. Nothing is drawn inside a timed
// part: the overhead runs and the seeks are only announced before they
// start. The figures go to stdout.
#include "bench_progress.h"

#include "core/engine/allocator.h"
#include "core/engine/compute_threads.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/train_report.h"
#include "core/session/record_codec.h"
#include "core/session/session_file.h"
#include "core/session/session_recorder.h"

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <variant>
#include <vector>

using namespace synaptic;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr double kSeekBudgetMs = 100;
constexpr double kOverheadGoal = 0.03;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Options {
    std::string config = SYNAPTIC_DEFAULT_CONFIG;
    int threads = 2;
    std::uint64_t steps = 16;      // steps per edge of each overhead run
    int pairs = 40;
    std::uint64_t warmupSteps = 4;
    double sizeSeconds = 3;        // virtual seconds of the real-speed size run
    double hourSeconds = 3600;
    double slowdown = 3000;        // edge gflops divided by this for the hour
    std::size_t hourTestSubset = 100;
    std::size_t evalSubset = 100;  // test images per evaluation in the overhead runs
    int seeks = 100;
    std::uint64_t seekSeed = 1;
    std::string dir;
    bool keep = false;
    bool quick = false;
    bool quiet = false; // no progress on stderr
    std::string json;

    std::string reproduce() const {
        char line[1024];
        std::snprintf(line, sizeof line,
                      "synaptic-bench-session --threads %d --steps %llu --pairs %d --size-seconds %g --hour-seconds %g "
                      "--slowdown %g --hour-test-subset %zu --seeks %d --seek-seed %llu",
                      threads, (unsigned long long)steps, pairs, sizeSeconds, hourSeconds, slowdown, hourTestSubset,
                      seeks, (unsigned long long)seekSeed);
        std::string s = engine::blasEnvironmentPrefix() + line; // the bits follow OpenBLAS's pool
        if (config != SYNAPTIC_DEFAULT_CONFIG)
            s += " --config " + config;
        if (!json.empty())
            s += " --json " + json;
        return s;
    }
};

bool parse(int argc, char **argv, Options &o) {
    // --quick first: explicit flags override what it sets.
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--quick") {
            o.quick = true;
            o.steps = 4;
            o.pairs = 3;
            o.warmupSteps = 2;
            o.sizeSeconds = 2;
            o.slowdown = 8000;
            o.hourTestSubset = 50;
        }
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            continue;
        if (a == "--keep") {
            o.keep = true;
            continue;
        }
        if (a == "--quiet") {
            o.quiet = true;
            continue;
        }
        if (a == "--help" || a == "-h") {
            std::printf("usage: synaptic-bench-session [--config FILE] [--threads N] [--steps N] [--pairs N]\n"
                        "    [--size-seconds S] [--hour-seconds S] [--slowdown F] [--hour-test-subset N] [--seeks N]\n"
                        "    [--seek-seed N] [--dir DIR] [--keep] [--quick] [--json FILE] [--quiet]\n");
            std::exit(0);
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "synaptic-bench-session: error: %s needs a value\n", a.c_str());
            return false;
        }
        const std::string v = argv[++i];
        try {
            if (a == "--config") o.config = v;
            else if (a == "--threads") o.threads = std::stoi(v);
            else if (a == "--steps") o.steps = std::stoull(v);
            else if (a == "--pairs") o.pairs = std::stoi(v);
            else if (a == "--size-seconds") o.sizeSeconds = std::stod(v);
            else if (a == "--hour-seconds") o.hourSeconds = std::stod(v);
            else if (a == "--slowdown") o.slowdown = std::stod(v);
            else if (a == "--hour-test-subset") o.hourTestSubset = std::stoul(v);
            else if (a == "--seeks") o.seeks = std::stoi(v);
            else if (a == "--seek-seed") o.seekSeed = std::stoull(v);
            else if (a == "--dir") o.dir = v;
            else if (a == "--json") o.json = v;
            else {
                std::fprintf(stderr, "synaptic-bench-session: error: unknown option %s\n", a.c_str());
                return false;
            }
        } catch (const std::exception &) {
            std::fprintf(stderr, "synaptic-bench-session: error: %s expects a number, got '%s'\n", a.c_str(),
                         v.c_str());
            return false;
        }
    }
    if (o.threads < 1 || o.steps < 1 || o.pairs < 1 || o.sizeSeconds <= 0 || o.hourSeconds <= 0 || o.slowdown <= 0 ||
        o.hourTestSubset < 1 || o.seeks < 1) {
        std::fprintf(stderr, "synaptic-bench-session: error: every number must be positive\n");
        return false;
    }
    return true;
}

// Nearest rank on the sorted values (as bench/ui_refresh).
double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, std::size_t(p / 100.0 * double(v.size() - 1) + 0.5));
    return v[i];
}
double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
// Distribution-free 95 % interval of the median: the order statistics k and
// n + 1 - k with P(Binomial(n, 1/2) < k) <= 2.5 %; min..max when n is too small.
std::pair<double, double> medianInterval(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const int n = int(v.size());
    double cdf = 0, p = std::pow(0.5, n); // P(X = i), from i = 0
    int k = 0;
    for (int i = 0; i < n; ++i) {
        if (cdf + p > 0.025)
            break;
        cdf += p;
        k = i + 1;
        p = p * double(n - i) / double(i + 1);
    }
    if (k == 0)
        return {v.front(), v.back()};
    return {v[std::size_t(k - 1)], v[std::size_t(n - k)]};
}
double mean(const std::vector<double> &v) {
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

// Threads of this process, and one thread's time on a CPU so far (Linux).
std::vector<int> threadIds() {
    std::vector<int> ids;
    for (const auto &e : fs::directory_iterator("/proc/self/task"))
        ids.push_back(std::stoi(e.path().filename().string()));
    std::sort(ids.begin(), ids.end());
    return ids;
}
double threadCpuSeconds(int tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/schedstat");
    std::uint64_t ns = 0;
    in >> ns;
    return double(ns) / 1e9;
}
double processCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Run {
    engine::StrategyResult result;
    std::string path;              // the recording; empty: a plain run
    session::RecorderStats stats;
    double wallSeconds = 0;        // Simulation built, run, recorder closed
    double closeSeconds = 0;       // recorder endRun + close
    double processCpuSeconds = 0;  // every thread of the process during Simulation::run()
    double writerCpuSeconds = 0;   // the recorder's own thread during Simulation::run()
    double recordSeconds = 0;      // engine thread inside SessionRecorder::record()
};

// One run of the simulation; recorded with default RecorderOptions when
// `recordPath` is set. `hooks` (progress) are called as sim_runner calls them.
Run runOnce(const engine::ClusterConfig &config, const engine::SimData &data, engine::SimOptions o,
            const std::string &recordPath, const engine::SimRunHooks &hooks = {}) {
    Run out;
    const auto t0 = Clock::now();
    std::unique_ptr<session::SessionRecorder> recorder;
    std::vector<int> writerThreads;
    if (!recordPath.empty()) {
        const auto before = threadIds();
        recorder = std::make_unique<session::SessionRecorder>(recordPath, "synaptic-bench-session");
        const auto after = threadIds();
        std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                            std::back_inserter(writerThreads));
        // The recorder's observer, timed: what it costs the engine thread itself.
        o.observer = [record = recorder->observer(), &out](const engine::SimEvent &e) {
            const auto r0 = Clock::now();
            record(e);
            out.recordSeconds += std::chrono::duration<double>(Clock::now() - r0).count();
        };
        out.path = recordPath;
    }
    if (hooks.prepare)
        hooks.prepare(config, o);
    engine::Simulation sim(config, data.train, data.trainLabels, data.test, o);
    struct Leaving { // the Simulation goes away: after finished, or because its run threw
        const engine::SimRunHooks &hooks;
        ~Leaving() {
            if (hooks.leaving)
                hooks.leaving();
        }
    } leaving{hooks};
    if (recorder)
        recorder->beginRun(config, o, &sim);
    if (hooks.started)
        hooks.started(config, o, sim);
    double writerCpu = 0;
    for (int tid : writerThreads)
        writerCpu -= threadCpuSeconds(tid);
    const double cpu0 = processCpuSeconds();
    out.result = sim.run();
    out.processCpuSeconds = processCpuSeconds() - cpu0;
    for (int tid : writerThreads)
        writerCpu += threadCpuSeconds(tid);
    out.writerCpuSeconds = writerCpu;
    if (hooks.finished)
        hooks.finished(out.result);
    if (recorder) {
        const auto c0 = Clock::now();
        recorder->endRun(out.result);
        recorder->close();
        out.closeSeconds = since(c0);
        out.stats = recorder->stats();
        if (!out.stats.error.empty())
            throw std::runtime_error("recording " + recordPath + " failed: " + out.stats.error);
        if (out.stats.coalesced)
            throw std::runtime_error("recording " + recordPath + " coalesced " + std::to_string(out.stats.coalesced) +
                                     " samples (the writer fell behind)");
        if (out.stats.events != out.result.events)
            throw std::runtime_error("recording " + recordPath + " holds " + std::to_string(out.stats.events) +
                                     " events, the engine emitted " + std::to_string(out.result.events));
    }
    out.wallSeconds = since(t0);
    return out;
}

double perSampleUs(const Run &r) {
    return r.result.trainWallSeconds / double(std::max<std::uint64_t>(1, r.result.samples)) * 1e6;
}

const char *const kKinds[] = {"metric", "routing", "link_bytes", "drift", "consistency", "lease", "command"};

constexpr std::uint64_t recorder_queue_slack = 1u << 16; // half the recorder's default queue

struct Seeks {
    std::vector<double> ms;
    std::vector<double> chunksRead; // from its keyframe chunk to the one holding t
    double openMs = 0;              // median of 5
    double firstOpenMs = 0, firstOpenAndSeekMs = 0;
    std::size_t chunks = 0, keyframeChunks = 0;
    int checked = 0;
    std::string firstFailure;

    json toJson() const {
        return {{"count", ms.size()},
                {"checked", checked},
                {"chunks", chunks},
                {"keyframe_chunks", keyframeChunks},
                {"open_ms_median", openMs},
                {"first_open_ms", firstOpenMs},
                {"first_open_and_seek_ms", firstOpenAndSeekMs},
                {"p50_ms", percentile(ms, 50)},
                {"p95_ms", percentile(ms, 95)},
                {"p99_ms", percentile(ms, 99)},
                {"max_ms", percentile(ms, 100)},
                {"budget_ms", kSeekBudgetMs},
                {"p99_over_budget", percentile(ms, 99) / kSeekBudgetMs},
                {"met", percentile(ms, 99) <= kSeekBudgetMs},
                {"chunks_read_mean", mean(chunksRead)},
                {"chunks_read_max", percentile(chunksRead, 100)}};
    }
};

// Seeks stateAt(0, t) for every t on one SessionFile opened once, after a
// first open + seek and five opens timed on their own. Each state must have
// time <= t and exactly the events at or before t (`eventTimes`, sorted), and
// pass `check`.
Seeks measureSeeks(const std::string &path, const std::vector<double> &times, const std::vector<double> &eventTimes,
                   const std::function<std::string(double, const session::SessionState &)> &check) {
    if (!std::is_sorted(eventTimes.begin(), eventTimes.end()))
        throw std::runtime_error(path + ": the stream is not in time order");
    Seeks out;
    const auto cold0 = Clock::now();
    {
        session::SessionFile f(path);
        out.firstOpenMs = since(cold0) * 1e3;
        f.stateAt(0, times.front());
    }
    out.firstOpenAndSeekMs = since(cold0) * 1e3;
    std::vector<double> openMs;
    for (int k = 0; k < 5; ++k) {
        const auto t0 = Clock::now();
        session::SessionFile f(path);
        openMs.push_back(since(t0) * 1e3);
    }
    out.openMs = median(openMs);
    session::SessionFile file(path);
    std::vector<session::SessionState> states;
    states.reserve(times.size());
    for (double t : times) {
        const auto t0 = Clock::now();
        auto st = file.stateAt(0, t);
        out.ms.push_back(since(t0) * 1e3);
        states.push_back(std::move(st));
    }
    const auto &chunks = file.chunks();
    out.chunks = chunks.size();
    for (const auto &c : chunks)
        out.keyframeChunks += c.keyframe;
    for (std::size_t i = 0; i < times.size(); ++i) {
        const double t = times[i];
        const auto &st = states[i];
        const auto expect = std::uint64_t(std::upper_bound(eventTimes.begin(), eventTimes.end(), t) - eventTimes.begin());
        std::string why;
        if (st.time > t)
            why = "state time " + std::to_string(st.time) + " after the seek";
        else if (st.events != expect)
            why = std::to_string(st.events) + " events folded, " + std::to_string(expect) + " expected";
        else
            why = check(t, st);
        if (why.empty())
            ++out.checked;
        else if (out.firstFailure.empty())
            out.firstFailure = path + ": seek to " + std::to_string(t) + " s: " + why;
        std::size_t from = 0, to = 0;
        for (std::size_t k = 0; k < chunks.size() && chunks[k].firstTime <= t; ++k) {
            if (chunks[k].keyframe)
                from = k;
            to = k;
        }
        out.chunksRead.push_back(double(to - from + 1));
    }
    return out;
}

void printSeeks(const Seeks &s, const Options &o, const char *routingCheck) {
    const double p99 = percentile(s.ms, 99);
    std::printf("  %zu chunks, %zu of them keyframe chunks (a keyframe opens a chunk at least %g virtual s after the "
                "last); open %.2f ms (median of 5); first open + seek %.2f ms (open %.2f ms; file in the page cache)\n",
                s.chunks, s.keyframeChunks, session::RecorderOptions{}.keyframeEverySeconds, s.openMs,
                s.firstOpenAndSeekMs, s.firstOpenMs);
    std::printf("  %zu seeks stateAt(0, t), t uniform in [0, %.0f] (seed %llu), one file opened once: p50 %.2f ms, "
                "p95 %.2f ms, p99 %.2f ms, max %.2f ms; chunks read per seek mean %.1f, max %.0f\n",
                s.ms.size(), o.hourSeconds, (unsigned long long)o.seekSeed, percentile(s.ms, 50),
                percentile(s.ms, 95), p99, percentile(s.ms, 100), mean(s.chunksRead), percentile(s.chunksRead, 100));
    std::printf("  p99 against the %.0f ms budget: %.3fx (%s); %d of %zu seeks checked (state time <= t, events "
                "folded = events at or before t, %s)\n",
                kSeekBudgetMs, p99 / kSeekBudgetMs, p99 <= kSeekBudgetMs ? "within" : "OVER", s.checked, s.ms.size(),
                routingCheck);
}

} // namespace

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    Options o;
    if (!parse(argc, argv, o))
        return 2;
    const auto benchStart = Clock::now();
    bool ownDir = false;
    // Runs: the warm-up, both runs of every pair, the size run, the hour
    // recording, the dense hour's writing and the two sets of seeks.
    bench::BenchProgress progress("session", o.quiet, std::size_t(2 * o.pairs + 6));
    // A run announced (drawn before it starts, never inside it); then the bar
    // off the line for what the run prints to stdout.
    auto announced = [&](const std::string &what, auto &&work) {
        progress.next(what);
        auto out = work();
        progress.clear();
        return out;
    };
    try {
        if (o.dir.empty()) {
            o.dir = (fs::temp_directory_path() / ("synaptic-bench-session-" + std::to_string(::getpid()))).string();
            ownDir = !o.keep;
        }
        fs::create_directories(o.dir);

        const auto base = engine::loadClusterConfig(o.config);
        engine::setComputeThreads(o.threads);
        const int threads = at::get_num_threads();
        const std::string loadBefore = loadAverage();
        std::printf("synaptic-bench-session: %s, %d edges in %zu regions, strategy %s, seed %llu\n", o.config.c_str(),
                    base.edgeCount(), base.regions.size(), base.strategy.c_str(), (unsigned long long)base.seed);
        std::printf("  torch threads %d, OpenBLAS threads %d (--threads), %u hardware threads, load average %s%s\n",
                    threads, engine::blasThreads(), std::thread::hardware_concurrency(), loadBefore.c_str(),
                    o.quick ? ", --quick" : "");
        std::fflush(stdout);
        const auto dataStart = Clock::now();
        progress.phase("loading the data");
        const auto data = engine::loadSimData(base, "cpu");
        progress.clear();
        std::printf("  data loaded in %.1f s; recordings in %s%s\n", since(dataStart), o.dir.c_str(),
                    ownDir ? " (removed at the end; --keep keeps them)" : "");
        std::printf("  every run: default SimOptions (link reports every %g virtual s, evaluation every %g virtual s) "
                    "except no final 10,000-image evaluation; default RecorderOptions\n",
                    engine::SimOptions{}.linkReportSeconds, base.evalEverySeconds);

        // ---- 1. Overhead -------------------------------------------------
        engine::SimOptions defaults;
        defaults.finalFullEvaluation = false; // evaluation is not timed, and not telemetry
        // The default config; its evaluations (at the start and the end of
        // each short run, not timed) on fewer test images: same training,
        // same events, less waiting between the timed parts.
        engine::ClusterConfig overheadConfig = base;
        overheadConfig.evalTestSubset = o.evalSubset;
        engine::SimOptions stepOptions = defaults;
        stepOptions.stepsPerEdge = o.steps;
        {
            engine::SimOptions w = defaults;
            w.stepsPerEdge = o.warmupSteps;
            const auto warm = announced("overhead warm-up", [&] { return runOnce(overheadConfig, data, w, ""); });
            std::printf("\n1. recording overhead: %llu steps per edge (%llu samples) per run, %d pairs, ABBA order, "
                        "evaluations (not timed) on %zu test images; warm-up run %.1f s\n",
                        (unsigned long long)o.steps,
                        (unsigned long long)(o.steps * std::uint64_t(base.edgeCount()) * std::uint64_t(base.batchSize)),
                        o.pairs, o.evalSubset, warm.wallSeconds);
            std::fflush(stdout);
        }
        std::vector<Run> plain, recorded;
        std::vector<double> ratios;
        std::vector<std::string> pairLoad; // load average after each pair: other work on the machine
        for (int p = 0; p < o.pairs; ++p) {
            const std::string path = (fs::path(o.dir) / ("overhead-" + std::to_string(p) + ".synrec")).string();
            Run a, b;
            const std::string pair = "overhead pair " + std::to_string(p + 1) + "/" + std::to_string(o.pairs);
            auto plainRun = [&] {
                return announced(pair + ", plain", [&] { return runOnce(overheadConfig, data, stepOptions, ""); });
            };
            auto recordedRun = [&] {
                return announced(pair + ", recorded", [&] { return runOnce(overheadConfig, data, stepOptions, path); });
            };
            if (p % 2 == 0) {
                a = plainRun();
                b = recordedRun();
            } else {
                b = recordedRun();
                a = plainRun();
            }
            if (a.result.eventHash != b.result.eventHash || a.result.samples != b.result.samples ||
                (!plain.empty() && a.result.eventHash != plain.front().result.eventHash))
                throw std::runtime_error("the runs differ (event hash or samples): the work is not identical");
            const double ratio = perSampleUs(b) / perSampleUs(a) - 1;
            ratios.push_back(ratio);
            pairLoad.push_back(loadAverage());
            std::printf("  pair %d (%s first): plain %.1f us/sample (%.0f samples/s), recorded %.1f us/sample "
                        "(%.0f samples/s): %+.2f %%  [load %s]\n",
                        p + 1, p % 2 == 0 ? "plain" : "recorded", perSampleUs(a), 1e6 / perSampleUs(a),
                        perSampleUs(b), 1e6 / perSampleUs(b), 100 * ratio, pairLoad.back().c_str());
            std::fflush(stdout);
            plain.push_back(std::move(a));
            recorded.push_back(std::move(b));
        }
        std::vector<double> plainUs, recUs, closeMs, cpuRatios, writerShare, writerMsPerWallS, recordMs, recordShare;
        for (const auto &r : plain)
            plainUs.push_back(perSampleUs(r));
        for (std::size_t p = 0; p < recorded.size(); ++p) {
            const auto &r = recorded[p];
            recUs.push_back(perSampleUs(r));
            closeMs.push_back(r.closeSeconds * 1e3);
            cpuRatios.push_back(r.processCpuSeconds / plain[p].processCpuSeconds - 1);
            writerShare.push_back(r.writerCpuSeconds / r.processCpuSeconds);
            writerMsPerWallS.push_back(r.writerCpuSeconds * 1e3 / r.result.wallSeconds);
            recordMs.push_back(r.recordSeconds * 1e3);
            recordShare.push_back(r.recordSeconds / r.result.trainWallSeconds);
        }
        const double overhead = median(ratios);
        const auto &r0 = plain.front().result;
        std::printf("  every run: %llu samples, %.4f virtual s, %llu events, event hash %016llx (identical)\n",
                    (unsigned long long)r0.samples, r0.virtualSeconds, (unsigned long long)r0.events,
                    (unsigned long long)r0.eventHash);
        std::printf("  train wall per sample, median: plain %.1f us (baseline, %.0f samples/s), recorded %.1f us "
                    "(%.0f samples/s)\n",
                    median(plainUs), 1e6 / median(plainUs), median(recUs), 1e6 / median(recUs));
        const auto interval = medianInterval(ratios);
        // The median decides; the interval says whether this run's noise resolves it.
        const std::string verdict = std::string(overhead <= kOverheadGoal ? "met" : "NOT MET") +
                                    (interval.second <= kOverheadGoal  ? " (the whole interval is within)"
                                     : interval.first > kOverheadGoal ? " (the whole interval is over)"
                                                                      : " (not resolved: the interval spans the goal)");
        std::printf("  overhead recorded/plain - 1: median %+.2f %% over %d pairs (95 %% interval of the median "
                    "%+.2f..%+.2f %%; quartiles %+.2f..%+.2f %%; min %+.2f %%, max %+.2f %%); goal <= %.0f %%: %s\n",
                    100 * overhead, o.pairs, 100 * interval.first, 100 * interval.second, 100 * percentile(ratios, 25),
                    100 * percentile(ratios, 75), 100 * percentile(ratios, 0), 100 * percentile(ratios, 100),
                    100 * kOverheadGoal, verdict.c_str());
        std::printf("  plain runs ranged %.1f..%.1f us/sample (%.1f %% apart); recorder endRun+close %.0f ms median "
                    "(after the run, not in the figures above)\n",
                    percentile(plainUs, 0), percentile(plainUs, 100),
                    100 * (percentile(plainUs, 100) / percentile(plainUs, 0) - 1), median(closeMs));
        std::printf("  where it goes: engine thread inside record() %.2f ms per run (%.3f %% of train wall, %.2f us "
                    "per event); the recorder's writer thread %.2f ms CPU per wall s (%.3f %% of the process's CPU); "
                    "process CPU recorded/plain - 1: median %+.2f %%\n",
                    median(recordMs), 100 * median(recordShare), 1e3 * median(recordMs) / double(r0.events),
                    median(writerMsPerWallS), 100 * median(writerShare), 100 * median(cpuRatios));
        std::fflush(stdout);

        // ---- 2. Size per simulated hour -----------------------------------
        engine::SimOptions sizeOptions = defaults;
        sizeOptions.virtualSeconds = o.sizeSeconds;
        const std::string sizePath = (fs::path(o.dir) / "size.synrec").string();
        std::printf("\n2. file size: the default config recorded for %g virtual s\n", o.sizeSeconds);
        std::fflush(stdout);
        const Run sized = announced("file size: the default config recorded",
                                    [&] { return runOnce(base, data, sizeOptions, sizePath); });
        const auto &sr = sized.result;
        const std::uint64_t sizeBytes = fs::file_size(sizePath);
        const double wholeMbPerHour = double(sizeBytes) / sr.virtualSeconds * 3600 / 1e6;
        session::SessionFile sizeFile(sizePath);
        const auto sizeData = sizeFile.readRun(0);
        // Steady state: from the first chunk that starts at or after the first
        // link report (start-up before it: the plan, the first evaluation,
        // leases) to the start of the last chunk (the run's end, at a whole
        // number of link-report periods): whole periods of the stream.
        const auto &sc = sizeFile.chunks();
        std::size_t first = 0;
        while (first < sc.size() && sc[first].firstTime < sizeOptions.linkReportSeconds)
            ++first;
        const std::size_t last = sc.size() - 1;
        if (first >= last)
            throw std::runtime_error("the size run has too few chunks for a steady state; --size-seconds must be at "
                                     "least 2");
        const double w0 = sc[first].firstTime, w1 = sc[last].firstTime;
        const std::uint64_t steadyBytes = sc[last].offset - sc[first].offset;
        const double steadySeconds = w1 - w0;
        std::vector<std::uint64_t> byKind(std::size(kKinds), 0);
        std::uint64_t steadyEvents = 0, steadyRouting = 0;
        for (const auto &e : sizeData.events) {
            const double t = session::eventTime(e);
            if (t >= w0 && t < w1) {
                ++byKind[e.index()];
                ++steadyEvents;
            }
        }
        for (const auto &r : sizeData.routing)
            steadyRouting += r.time >= w0 && r.time < w1;
        json kindsJson = json::object();
        std::string kindsText;
        for (std::size_t k = 0; k < byKind.size(); ++k) {
            const double perSecond = double(byKind[k]) / steadySeconds;
            kindsJson[kKinds[k]] = perSecond;
            if (byKind[k]) {
                char part[64];
                std::snprintf(part, sizeof part, "%s%s %.3g", kindsText.empty() ? "" : ", ", kKinds[k], perSecond);
                kindsText += part;
            }
        }
        const double steadyMbPerHour = double(steadyBytes) / steadySeconds * 3600 / 1e6;
        const double virtualPerWall = sr.virtualSeconds / sr.trainWallSeconds;
        // Folding this real-speed stream: a seek to its end reads every chunk
        // from the last keyframe (the run start's, in a run shorter than a keyframe interval).
        std::vector<double> foldMs;
        for (int k = 0; k < 3; ++k) {
            const auto s0 = Clock::now();
            const auto st = sizeFile.stateAt(0, sizeFile.runs()[0].lastTime);
            foldMs.push_back(since(s0) * 1e3);
            if (st.events != sized.stats.events)
                throw std::runtime_error("a seek to the end of the size run folded " + std::to_string(st.events) +
                                         " events of " + std::to_string(sized.stats.events));
        }
        double foldFrom = 0; // the keyframe the seek starts from
        for (const auto &c : sc)
            if (c.keyframe && c.firstTime <= sizeFile.runs()[0].lastTime)
                foldFrom = c.firstTime;
        const double foldMsPerVirtualSecond = median(foldMs) / (sizeFile.runs()[0].lastTime - foldFrom);
        const double keyframeSeconds = session::RecorderOptions{}.keyframeEverySeconds;
        std::printf("  %.3f MB for %.3f virtual s in %.1f wall s (%.1f s training: %.4f virtual s per wall s on this "
                    "machine, %.0f samples/s): %llu events, %llu routing samples, %llu chunks\n",
                    double(sizeBytes) / 1e6, sr.virtualSeconds, sized.wallSeconds, sr.trainWallSeconds,
                    virtualPerWall, double(sr.samples) / sr.trainWallSeconds, (unsigned long long)sized.stats.events,
                    (unsigned long long)sized.stats.routingSamples, (unsigned long long)sized.stats.chunks);
        std::printf("  size per simulated hour: %.1f MB steady state (%.4f MB in chunks %zu..%zu, %.3f..%.3f virtual s); "
                    "%.1f MB from the whole file (start-up and index included)\n",
                    steadyMbPerHour, double(steadyBytes) / 1e6, first, last - 1, w0, w1, wholeMbPerHour);
        std::printf("  steady state per virtual second: %.0f events (%s), %.1f routing samples, %.1f chunks\n",
                    double(steadyEvents) / steadySeconds, kindsText.c_str(), double(steadyRouting) / steadySeconds,
                    double(last - first) / steadySeconds);
        std::printf("  routing samples are taken as events arrive (at most one per %g virtual s or %g wall s) and a "
                    "chunk closes %g wall s after it opened: at this speed both follow the event bursts (link "
                    "reports, center syncs); per wall second %.2f KB, %.1f MB per wall hour\n",
                    session::RecorderOptions{}.routingEverySeconds, session::RecorderOptions{}.routingEveryWallSeconds,
                    session::RecorderOptions{}.chunkWallSeconds, double(sizeBytes) / sized.wallSeconds / 1e3,
                    double(sizeBytes) / sized.wallSeconds * 3600 / 1e6);
        std::printf("  folding this stream costs %.2f ms per virtual s (a seek to its end, median of 3): a seek at "
                    "the end of a %g s keyframe interval of a real-speed recording would take about %.0f ms\n",
                    foldMsPerVirtualSecond, keyframeSeconds, foldMsPerVirtualSecond * keyframeSeconds);
        std::fflush(stdout);

        // ---- 3. A one-hour recording and seeks into it --------------------
        engine::ClusterConfig hourConfig = base;
        for (auto &region : hourConfig.regions)
            for (auto &edge : region.edges)
                edge.gflops /= o.slowdown;
        hourConfig.evalTestSubset = o.hourTestSubset;
        engine::SimOptions hourOptions = defaults;
        hourOptions.virtualSeconds = o.hourSeconds;
        const std::string hourPath = (fs::path(o.dir) / "hour.synrec").string();
        std::printf("\n3. a %.0f-virtual-second recording: the default config with every edge's gflops / %g (%g -> %g), "
                    "evaluation on %zu test images instead of %zu (same evaluation events), a virtual-seconds budget "
                    "of %.0f\n",
                    o.hourSeconds, o.slowdown, base.regions[0].edges[0].gflops, hourConfig.regions[0].edges[0].gflops,
                    o.hourTestSubset, base.evalTestSubset, o.hourSeconds);
        std::fflush(stdout);
        // Minutes of work and no timing that a watcher thread would disturb: shown as it goes.
        // (The hooks start the run themselves.)
        const Run hour = runOnce(hourConfig, data, hourOptions, hourPath, progress.simHooks("hour recording of"));
        progress.clear();
        const auto &hr = hour.result;
        const std::uint64_t hourSteps = hr.samples / std::uint64_t(base.edgeCount() * base.batchSize);
        const std::uint64_t hourBytes = fs::file_size(hourPath);
        if (hr.virtualSeconds < o.hourSeconds * 0.999)
            throw std::runtime_error("the hour recording stopped early at " + std::to_string(hr.virtualSeconds) + " s");
        std::printf("  made in %.1f wall s (%.1f s evaluating): %.1f virtual s, %llu steps per edge (%.1f virtual s "
                    "each), accuracy %.4f\n",
                    hour.wallSeconds, hr.evalWallSeconds, hr.virtualSeconds, (unsigned long long)hourSteps,
                    hr.virtualSeconds / double(std::max<std::uint64_t>(1, hourSteps)), hr.finalAccuracy);
        std::printf("  %.3f MB (%.2f MB per simulated hour): %llu events (%.1f per virtual s), %llu routing samples, "
                    "%llu chunks; the writer thread used %.2f s CPU (%.1f us per event)\n",
                    double(hourBytes) / 1e6, double(hourBytes) / hr.virtualSeconds * 3600 / 1e6,
                    (unsigned long long)hour.stats.events, double(hour.stats.events) / hr.virtualSeconds,
                    (unsigned long long)hour.stats.routingSamples, (unsigned long long)hour.stats.chunks,
                    hour.writerCpuSeconds, hour.writerCpuSeconds / double(hour.stats.events) * 1e6);
        std::fflush(stdout);

        progress.next("seeks into the hour recording");
        // Random seek times, fixed seed.
        std::mt19937_64 rng(o.seekSeed);
        std::uniform_real_distribution<double> uniform(0, o.hourSeconds);
        std::vector<double> times(std::size_t(o.seeks));
        for (auto &t : times)
            t = uniform(rng);

        // The expected state at each seek, from the stream read whole.
        std::vector<double> eventTimes, routingTimes;
        {
            session::SessionFile reference(hourPath);
            const auto whole = reference.readRun(0);
            for (const auto &e : whole.events)
                eventTimes.push_back(session::eventTime(e));
            for (const auto &r : whole.routing)
                routingTimes.push_back(r.time);
        }
        if (eventTimes.size() != hour.stats.events || routingTimes.empty())
            throw std::runtime_error("the hour recording read back differs from what was written");
        const Seeks hourSeeks = measureSeeks(hourPath, times, eventTimes, [&](double t, const session::SessionState &st) {
            const auto it = std::upper_bound(routingTimes.begin(), routingTimes.end(), t);
            if (it != routingTimes.begin() && (!st.routing || st.routingTime != *(it - 1) || st.routing->rows.empty()))
                return std::string("routing table missing or not the latest sample");
            return std::string();
        });
        progress.clear();
        printSeeks(hourSeeks, o, "the latest routing sample");
        std::fflush(stdout);

        // ---- 3b. The default stream's density, faster than real time --------
        // The size run's steady window (whole link-report periods) tiled over
        // the hour and fed to a recorder as fast as it writes: the file a
        // machine that runs the default config faster than real time would
        // make, where chunks close on size, not on the wall clock.
        progress.next("the dense hour: writing it");
        std::vector<engine::SimEvent> tile;
        for (const auto &e : sizeData.events)
            if (const double t = session::eventTime(e); t >= w0 && t < w1)
                tile.push_back(e);
        const std::string densePath = (fs::path(o.dir) / "dense-hour.synrec").string();
        std::vector<double> denseTimes;
        session::RecorderStats denseStats;
        double denseWall = 0, denseWriterCpu = 0;
        {
            engine::SimOptions shellOptions = defaults;
            shellOptions.virtualSeconds = o.hourSeconds;
            // Never run: it only lends its routing table (the plan's) to the recorder's samples.
            engine::Simulation shell(base, data.train, data.trainLabels, data.test, shellOptions);
            const auto d0 = Clock::now();
            const auto before = threadIds();
            session::SessionRecorder recorder(densePath, "synaptic-bench-session (dense)");
            const auto after = threadIds();
            std::vector<int> writer;
            std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(writer));
            recorder.beginRun(base, shellOptions, &shell);
            std::uint64_t fed = 0;
            for (std::uint64_t k = 0;; ++k) {
                const double shift = double(k) * steadySeconds - w0;
                if (w0 + shift >= o.hourSeconds)
                    break;
                for (auto e : tile) {
                    std::visit([&](auto &x) { x.time += shift; }, e);
                    const double t = session::eventTime(e);
                    if (t >= o.hourSeconds)
                        break;
                    recorder.record(e);
                    denseTimes.push_back(t);
                    // Never let the queue fill (it would coalesce samples, and the count check below would fail).
                    if (++fed % 4096 == 0) {
                        while (fed - recorder.stats().events > recorder_queue_slack)
                            std::this_thread::sleep_for(std::chrono::milliseconds(1));
                        progress.update(t / o.hourSeconds); // rate-limited: a clock read most times
                    }
                }
            }
            engine::StrategyResult end;
            end.strategy = base.strategy;
            end.virtualSeconds = o.hourSeconds;
            end.events = fed;
            recorder.endRun(end);
            // The writer's CPU time before close() ends the thread (the last chunk and index are left out).
            while (recorder.stats().events < fed)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            for (int tid : writer)
                denseWriterCpu += threadCpuSeconds(tid);
            recorder.close();
            denseWall = since(d0);
            denseStats = recorder.stats();
            if (!denseStats.error.empty() || denseStats.coalesced || denseStats.events != fed)
                throw std::runtime_error("the dense recording lost events: " + denseStats.error);
        }
        progress.clear();
        const std::uint64_t denseBytes = fs::file_size(densePath);
        std::printf("\n3b. the default config's density for %.0f virtual s, faster than real time: the size run's %.3f..%.3f "
                    "s window (%zu events) tiled and fed to a recorder (routing samples: the plan's table)\n",
                    o.hourSeconds, w0, w1, tile.size());
        std::printf("  written in %.1f wall s: %.3f MB (%.1f MB per simulated hour), %llu events, %llu routing samples, "
                    "%llu chunks; the writer thread used %.1f s CPU, %.1f us per event (%.0f events per CPU s)\n",
                    denseWall, double(denseBytes) / 1e6, double(denseBytes) / o.hourSeconds * 3600 / 1e6,
                    (unsigned long long)denseStats.events, (unsigned long long)denseStats.routingSamples,
                    (unsigned long long)denseStats.chunks, denseWriterCpu,
                    denseWriterCpu / double(denseStats.events) * 1e6, double(denseStats.events) / denseWriterCpu);
        std::fflush(stdout);
        const double routingGap = std::max(session::RecorderOptions{}.routingEverySeconds, 1.0);
        progress.next("seeks into the dense hour");
        const Seeks denseSeeks = measureSeeks(densePath, times, denseTimes, [&](double t, const session::SessionState &st) {
            if (t >= routingGap && (!st.routing || st.routingTime > t || t - st.routingTime > routingGap ||
                                    st.routing->rows.empty()))
                return std::string("no routing sample in the last ") + std::to_string(routingGap) + " s";
            return std::string();
        });
        progress.endRun();
        progress.finish();
        printSeeks(denseSeeks, o, "a routing sample at most 1 s old");

        const double totalWall = since(benchStart);
        std::printf("\nbenchmark wall time %.0f s; load average before %s, after %s\n", totalWall, loadBefore.c_str(),
                    loadAverage().c_str());
        std::printf("reproduce: %s\n", o.reproduce().c_str());
        std::fflush(stdout);
        for (const auto *sk : {&hourSeeks, &denseSeeks})
            if (!sk->firstFailure.empty())
                throw std::runtime_error("a seek landed on the wrong state: " + sk->firstFailure);

        if (!o.json.empty()) {
            json pairs = json::array();
            for (std::size_t p = 0; p < plain.size(); ++p)
                pairs.push_back({{"first", p % 2 == 0 ? "plain" : "recorded"},
                                 {"plain_us_per_sample", plainUs[p]},
                                 {"recorded_us_per_sample", recUs[p]},
                                 {"overhead", ratios[p]},
                                 {"plain_process_cpu_s", plain[p].processCpuSeconds},
                                 {"recorded_process_cpu_s", recorded[p].processCpuSeconds},
                                 {"writer_thread_cpu_s", recorded[p].writerCpuSeconds},
                                 {"record_calls_s", recorded[p].recordSeconds},
                                 {"load_average_after", pairLoad[p]}});
            json report = {
                {"command", o.reproduce()},
                {"config", o.config},
                {"threads", threads},
                {"blas_threads", engine::blasThreads()},
                {"hardware_threads", std::thread::hardware_concurrency()},
                {"load_average_before", loadBefore},
                {"quick", o.quick},
                {"final_full_evaluation", false},
                {"wall_seconds", totalWall},
                {"overhead",
                 {{"steps_per_edge", o.steps},
                  {"samples_per_run", r0.samples},
                  {"virtual_seconds_per_run", r0.virtualSeconds},
                  {"events_per_run", r0.events},
                  {"event_hash", r0.eventHash},
                  {"pairs", pairs},
                  {"plain_us_per_sample_median", median(plainUs)},
                  {"recorded_us_per_sample_median", median(recUs)},
                  {"plain_samples_per_second_median", 1e6 / median(plainUs)},
                  {"recorded_samples_per_second_median", 1e6 / median(recUs)},
                  {"overhead_median", overhead},
                  {"overhead_median_interval_95", {interval.first, interval.second}},
                  {"overhead_quartiles", {percentile(ratios, 25), percentile(ratios, 75)}},
                  {"overhead_min", percentile(ratios, 0)},
                  {"overhead_max", percentile(ratios, 100)},
                  {"goal", kOverheadGoal},
                  {"met", overhead <= kOverheadGoal},
                  {"verdict", verdict},
                  {"record_calls_ms_per_run_median", median(recordMs)},
                  {"record_calls_share_of_train_wall_median", median(recordShare)},
                  {"writer_thread_cpu_ms_per_wall_second_median", median(writerMsPerWallS)},
                  {"writer_thread_share_of_process_cpu_median", median(writerShare)},
                  {"process_cpu_overhead_median", median(cpuRatios)},
                  {"recorder_close_ms_median", median(closeMs)}}},
                {"size",
                 {{"virtual_seconds", sr.virtualSeconds},
                  {"wall_seconds", sized.wallSeconds},
                  {"train_wall_seconds", sr.trainWallSeconds},
                  {"virtual_seconds_per_wall_second", virtualPerWall},
                  {"bytes", sizeBytes},
                  {"events", sized.stats.events},
                  {"routing_samples", sized.stats.routingSamples},
                  {"chunks", sized.stats.chunks},
                  {"mb_per_simulated_hour", steadyMbPerHour},
                  {"mb_per_simulated_hour_whole_file", wholeMbPerHour},
                  {"steady_window_s", {w0, w1}},
                  {"steady_bytes", steadyBytes},
                  {"events_per_virtual_second", double(steadyEvents) / steadySeconds},
                  {"events_per_virtual_second_by_kind", kindsJson},
                  {"routing_samples_per_virtual_second", double(steadyRouting) / steadySeconds},
                  {"chunks_per_virtual_second", double(last - first) / steadySeconds},
                  {"mb_per_wall_hour", double(sizeBytes) / sized.wallSeconds * 3600 / 1e6},
                  {"fold_ms_per_virtual_second", foldMsPerVirtualSecond},
                  {"real_speed_keyframe_interval_seek_ms_estimate", foldMsPerVirtualSecond * keyframeSeconds}}},
                {"hour_recording",
                 {{"how", "default config, every edge's gflops divided by the slowdown, evaluation test subset "
                          "reduced, virtual-seconds budget; default SimOptions (no final full evaluation) and "
                          "RecorderOptions"},
                  {"slowdown", o.slowdown},
                  {"edge_gflops", hourConfig.regions[0].edges[0].gflops},
                  {"eval_test_subset", o.hourTestSubset},
                  {"virtual_seconds", hr.virtualSeconds},
                  {"steps_per_edge", hourSteps},
                  {"wall_seconds", hour.wallSeconds},
                  {"eval_wall_seconds", hr.evalWallSeconds},
                  {"bytes", hourBytes},
                  {"events", hour.stats.events},
                  {"routing_samples", hour.stats.routingSamples},
                  {"chunks", hour.stats.chunks},
                  {"writer_thread_cpu_seconds", hour.writerCpuSeconds}}},
                {"seek_seed", o.seekSeed},
                {"seeks", hourSeeks.toJson()},
                {"dense_hour",
                 {{"how", "the size run's steady window tiled over the hour and fed to a recorder as fast as it "
                          "writes; routing samples of the plan's table"},
                  {"window_s", {w0, w1}},
                  {"tile_events", tile.size()},
                  {"write_wall_seconds", denseWall},
                  {"writer_thread_cpu_seconds", denseWriterCpu},
                  {"writer_us_per_event", denseWriterCpu / double(denseStats.events) * 1e6},
                  {"bytes", denseBytes},
                  {"mb_per_simulated_hour", double(denseBytes) / o.hourSeconds * 3600 / 1e6},
                  {"events", denseStats.events},
                  {"routing_samples", denseStats.routingSamples},
                  {"chunks", denseStats.chunks},
                  {"seeks", denseSeeks.toJson()}}},
            };
            engine::writeFileAtomically(o.json, report.dump(1) + "\n");
            std::printf("report written to %s\n", o.json.c_str());
        }
    } catch (const std::exception &e) {
        progress.line(std::string("synaptic-bench-session: error: ") + e.what());
        if (ownDir)
            fs::remove_all(o.dir);
        return 1;
    }
    if (ownDir)
        fs::remove_all(o.dir);
    return 0;
}
