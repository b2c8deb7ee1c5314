#pragma once

// A benchmark's progress on stderr (issue 18 §1): on a terminal a bar
// redrawn in place, otherwise a plain line every few seconds, so that logs
// and CI show the bench is alive; --quiet shows nothing. stdout, where the
// results go (people parse them), is left as it was.
//
//   bench strategies [######..................]  25%  run 6/21: seed 1, fp32 hier_diloco  ETA 41m10s
//
// A bench is a sequence of runs (a seed, a strategy, a pair, a phase);
// next() starts the next one and the bar shows the share of all of them
// done. A simulation run through simHooks() is shown as it goes (steps,
// samples, virtual time, accuracy: engine::SimProgress) in a second meter
// on the same line, so that the bench's own clock, and with it the whole
// bench's ETA, is never restarted. Header-only: every bench links the
// engine, not one bench library.
#include "core/engine/progress_meter.h"
#include "core/engine/sim/sim_progress.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

namespace synaptic::bench {

class BenchProgress {
public:
    // `name` as the bench calls itself ("strategies"); the label is "bench NAME".
    BenchProgress(const std::string &name, bool quiet, std::size_t runs = 1)
        : m_label("bench " + name), m_style(styleFor(quiet)), m_meter(stderr, m_label, m_style),
          m_inner(stderr, m_label, m_style), m_runs(std::max<std::size_t>(1, runs)) {}
    BenchProgress(const BenchProgress &) = delete;
    BenchProgress &operator=(const BenchProgress &) = delete;

    void setRuns(std::size_t runs) { m_runs = std::max<std::size_t>(1, runs); }
    std::size_t runs() const { return m_runs; }
    std::size_t run() const { return m_run; } // 1-based; 0 before the first
    bool quiet() const { return m_style.quiet; }

    // The next run begins (the one before it is done); `what` says which
    // ("seed 2, fp32 synaptic").
    void next(std::string what) {
        m_done = m_run;
        m_run = std::min(m_run + 1, m_runs);
        m_what = std::move(what);
        update(0);
    }
    // The current run is done (next() says so too): after the last one the
    // bar shows 100 %.
    void endRun() { m_done = m_run; }
    // Where the current run is: `within` its share done (0..1; negative:
    // unknown, counted as 0), `detail` in its own units. Rate-limited by the
    // meter: call it as often as convenient, but only where a few
    // microseconds of stderr output disturb nothing measured.
    void update(double within = 0, const std::string &detail = {}) {
        std::string text;
        if (m_run > 0)
            text = "run " + std::to_string(m_run) + "/" + std::to_string(m_runs) + (m_what.empty() ? "" : ": " + m_what);
        if (!detail.empty())
            text += (text.empty() ? "" : ", ") + detail;
        m_meter.update(fraction(within), text);
    }
    // Before the first run or after one is done: a phase of the bench that
    // is not one of its runs ("loading the data", "measuring the plain loop").
    void phase(const std::string &detail) { m_meter.update(fraction(0), detail); }
    // A permanent line on stderr (a warning, a failure), shown with --quiet too.
    void line(const std::string &text) { m_meter.line(text); }
    // Before printing to stdout while a bar may be showing: on a terminal the
    // bar is taken off its line so a result does not land on the end of it;
    // the next update draws it again.
    void clear() {
        if (m_style.quiet || !m_meter.terminal())
            return;
        std::fflush(stdout);
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
    }
    // The bench is over: "bench NAME: done in 3m05s" (nothing with --quiet).
    void finish() {
        m_inner.finish();
        m_meter.finish("done in " + engine::formatDuration(m_meter.elapsedSeconds()));
    }

    // Hooks for runStrategies(), or for a Simulation built by hand (call
    // prepare, started, finished and leaving as sim_runner does): each
    // simulation they see is the next run, named `what` and its strategy,
    // and shown by a SimProgress while it runs. `inner`'s hooks still run.
    // The hooks refer to this object: it must outlive them.
    // With --quiet: `inner` alone, so nothing watches the run.
    engine::SimRunHooks simHooks(std::string what, engine::SimRunHooks inner = {}) {
        if (m_style.quiet)
            return inner;
        engine::SimRunHooks out;
        out.prepare = [this, what, inner](const engine::ClusterConfig &c, engine::SimOptions &o) {
            next(what.empty() ? c.strategy : what + " " + c.strategy);
            // One SimProgress per simulation: its label carries the run's place in the bench.
            m_sim.reset();
            std::string label = m_label + " run " + std::to_string(m_run) + "/" + std::to_string(m_runs) + " (" +
                                percent(fraction(0)) + ")" + (what.empty() ? ":" : ": " + what);
            m_sim = std::make_unique<engine::SimProgress>(m_inner, std::move(label));
            m_simHooks = m_sim->wrap(inner);
            if (m_simHooks.prepare)
                m_simHooks.prepare(c, o);
        };
        out.started = [this](const engine::ClusterConfig &c, const engine::SimOptions &o, engine::Simulation &sim) {
            if (m_simHooks.started)
                m_simHooks.started(c, o, sim);
        };
        out.finished = [this](const engine::StrategyResult &r) {
            // SimProgress stops its watcher and clears its bar before `inner` sees the result.
            if (m_simHooks.finished)
                m_simHooks.finished(r);
            endRun();
        };
        out.leaving = [this] {
            if (m_simHooks.leaving)
                m_simHooks.leaving();
            m_inner.finish(); // a run that threw: its bar off the line too
            m_simHooks = {};
            m_sim.reset();
        };
        return out;
    }

private:
    static engine::ProgressStyle styleFor(bool quiet) {
        engine::ProgressStyle s;
        s.quiet = quiet;
        return s;
    }
    static std::string percent(double f) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.0f%%", 100 * std::clamp(f, 0.0, 1.0));
        return buf;
    }
    double fraction(double within) const {
        const double done = double(m_done) + (m_run > m_done ? std::clamp(within, 0.0, 1.0) : 0.0);
        return std::clamp(done / double(m_runs), 0.0, 1.0);
    }

    std::string m_label;
    engine::ProgressStyle m_style;
    engine::ProgressMeter m_meter; // the bench: its clock runs from start to end
    engine::ProgressMeter m_inner; // the simulation running now (SimProgress restarts it per run)
    std::size_t m_runs;
    std::size_t m_run = 0;  // the run under way or last begun, 1-based
    std::size_t m_done = 0; // runs done
    std::string m_what;
    std::unique_ptr<engine::SimProgress> m_sim;
    engine::SimRunHooks m_simHooks;
};

} // namespace synaptic::bench
