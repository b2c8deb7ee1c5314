#include "session_rerun.h"

#include "record_codec.h"

#include "core/engine/compute_threads.h"
#include "core/engine/device.h"
#include "core/engine/sim/sim_event_samples.h"
#include "core/engine/sim/sim_runner.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace synaptic::session {

RerunPlan rerunPlan(const RunInfo &run, const RunData &recorded) {
    const auto &s = run.start;
    if (s.begins_at() > 0)
        throw std::runtime_error("run " + std::to_string(s.run()) + " was recorded from virtual second " +
                                 std::to_string(s.begins_at()) + ", not from its start; it cannot be rerun");
    RerunPlan plan;
    plan.config = engine::parseClusterConfig(s.config_json(), "recorded config of run " + std::to_string(s.run()));
    auto &o = plan.options;
    o.device = s.device().empty() ? "cpu" : s.device();
    o.stepsPerEdge = s.steps_per_edge();
    o.virtualSeconds = s.virtual_seconds();
    o.targetAccuracy = s.target_accuracy();
    o.evalEverySamples = s.eval_every_samples();
    o.evaluateRegions = s.evaluate_regions();
    o.finalFullEvaluation = s.final_full_evaluation();
    o.linkReportSeconds = s.link_report_seconds();
    for (const auto &e : recorded.events) {
        if (const auto *c = std::get_if<engine::CommandEvent>(&e)) {
            engine::SimCommand command = c->issued;
            command.at = c->time;
            command.atBoundary = c->boundary;
            o.commands.push_back(command);
        }
        plan.until = std::max(plan.until, eventTime(e));
    }
    // A run stopped by hand has no budget the engine could reach by itself.
    if (o.stepsPerEdge == 0 && !(o.virtualSeconds > 0))
        o.virtualSeconds = plan.until + o.linkReportSeconds;
    plan.threads = s.threads();
    plan.blasThreads = s.blas_threads();
    return plan;
}

namespace {

// Why a rerun's BLAS may differ from the recording's, or "" when it is the
// same or cannot be told.
std::string blasPoolNote(int recorded, int now) {
    const std::string n = std::to_string(now);
    if (recorded > 0 && now == 0)
        return " (the recording ran on an OpenBLAS pool of " + std::to_string(recorded) +
               "; this process's BLAS is another)";
    if (recorded > 0 && now != recorded)
        return " (the recording ran on an OpenBLAS pool of " + std::to_string(recorded) + "; OpenBLAS allows " + n + ")";
    if (recorded < 0 && now > 0)
        return " (the recording ran on another BLAS than OpenBLAS)";
    if (recorded == 0 && now > 0)
        return " (the recording does not hold its OpenBLAS pool; this process has " + n +
               ": OPENBLAS_NUM_THREADS sets another)";
    return "";
}

// Why a rerun's bits may differ when it runs on another LibTorch thread
// count than the recording (its reductions sum in another order), or "".
std::string threadsNote(int recorded, int now) {
    if (recorded <= 0 || now == recorded)
        return "";
    return " (the recording ran on " + std::to_string(recorded) + " LibTorch thread(s); this rerun on " +
           std::to_string(now) + ")";
}

} // namespace

RerunResult rerunAndCompare(const RunInfo &run, const RunData &recorded, int threads,
                            const engine::SimRunHooks &hooks) {
    RerunPlan plan = rerunPlan(run, recorded);
    const int rerunThreads = threads > 0 ? threads : std::max(1, plan.threads);
    at::set_num_threads(rerunThreads);
    // The recorded OpenBLAS pool too, whatever the environment says: its
    // threaded sgemm sums in another order, so the bits follow it. A
    // recording without one ran on OpenBLAS's default pool, which this
    // process still has unless something set another.
    if (plan.blasThreads > 0)
        engine::setBlasThreads(plan.blasThreads);
    const std::string device = engine::resolveDevice(plan.options.device);
    plan.options.device = device;
    const engine::SimData data = engine::loadSimData(plan.config, device);

    RerunResult result;
    result.statesOnly = run.end && (run.end->coalesced() > 0 || run.end->dropped() > 0);
    // A recording whose samples were folded still holds every state event
    // in order: compare those, and say that is all that was compared.
    std::vector<engine::SimEvent> statesOnly;
    if (result.statesOnly)
        for (const auto &e : recorded.events)
            if (!engine::SimEventSamples::isSample(e))
                statesOnly.push_back(e);
    const auto &expected = result.statesOnly ? statesOnly : recorded.events;
    result.recorded = expected.size();
    std::size_t next = 0;
    engine::Simulation *running = nullptr;
    plan.options.observer = [&](const engine::SimEvent &e) {
        if (result.statesOnly && engine::SimEventSamples::isSample(e))
            return;
        if (next >= expected.size() || !result.firstDifference.empty()) {
            if (running)
                running->requestStop();
            return;
        }
        const std::string want = engine::describeEvent(expected[next]);
        const std::string got = engine::describeEvent(e);
        if (want != got) {
            result.firstDifference = "event " + std::to_string(next) + ": recorded \"" + want + "\" / rerun \"" +
                                     got + "\"";
            return;
        }
        ++result.compared;
        if (std::holds_alternative<engine::MetricEvent>(e))
            ++result.metricsCompared;
        ++next;
    };
    if (hooks.prepare)
        hooks.prepare(plan.config, plan.options);
    engine::Simulation sim(plan.config, data.train, data.trainLabels, data.test, plan.options);
    running = &sim;
    struct Leaving { // before `sim` goes, also when run() throws
        const engine::SimRunHooks &hooks;
        ~Leaving() {
            if (hooks.leaving)
                hooks.leaving();
        }
    } leaving{hooks};
    if (hooks.started)
        hooks.started(plan.config, plan.options, sim);
    const engine::StrategyResult rerun = sim.run();
    if (hooks.finished)
        hooks.finished(rerun);
    if (result.firstDifference.empty() && next < expected.size())
        result.firstDifference = "the rerun ended after " + std::to_string(next) + " of " +
                                 std::to_string(expected.size()) + " recorded events";
    result.identical = result.firstDifference.empty();
    if (!result.identical)
        result.firstDifference +=
            threadsNote(plan.threads, rerunThreads) + blasPoolNote(plan.blasThreads, engine::blasThreads());
    return result;
}

} // namespace synaptic::session
