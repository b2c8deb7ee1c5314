#include "node_session.h"

#include "node_exit.h"

#include "core/engine/audit/invariants.h"
#include "core/engine/progress_meter.h"
#include "core/engine/sim/sim_progress.h"
#include "core/engine/train_report.h"
#include "core/session/audit_summary.h"
#include "core/session/session_export.h"
#include "core/session/session_file.h"
#include "core/session/session_recorder.h"
#include "core/session/session_rerun.h"

#include <cstdio>
#include <fstream>
#include <map>

namespace synaptic::app {


namespace {

void printProblems(const std::string &path, const std::vector<session::ReadProblem> &problems) {
    for (const auto &p : problems)
        std::fprintf(stderr, "synaptic-node: warning: %s: byte %llu: %s\n", path.c_str(),
                     (unsigned long long)p.offset, p.what.c_str());
}

// Reading a large recording takes seconds: the share of the run read.
session::SessionFile::Progress readingProgress(engine::ProgressMeter &meter, int run, std::size_t runs) {
    return [&meter, run, runs](double fraction) {
        meter.update(fraction, "reading run " + std::to_string(run) + " (" + std::to_string(runs) + " in the file)");
        return true;
    };
}

std::vector<session::ExportRun> selectRuns(session::SessionFile &file, int run,
                                           std::vector<session::RunData> &storage, engine::ProgressMeter &meter) {
    if (file.runs().empty())
        throw std::runtime_error(file.path() + ": holds no run");
    if (run >= int(file.runs().size()))
        throw std::runtime_error(file.path() + ": no run " + std::to_string(run) + " (it has " +
                                 std::to_string(file.runs().size()) + ")");
    std::vector<int> wanted;
    for (int r = 0; r < int(file.runs().size()); ++r)
        if (run < 0 || r == run)
            wanted.push_back(r);
    storage.reserve(wanted.size());
    std::vector<session::ExportRun> out;
    for (int r : wanted) {
        storage.push_back(file.readRun(r, readingProgress(meter, r, file.runs().size())));
        out.push_back({&file.runs()[std::size_t(r)], &storage.back()});
    }
    return out;
}

} // namespace

int runSimRecorded(const NodeCommand &cmd) {
    session::SessionRecorder recorder(cmd.recordPath, "synaptic-node sim");
    engine::SimRunHooks hooks;
    hooks.prepare = [&](const engine::ClusterConfig &, engine::SimOptions &o) { o.observer = recorder.observer(); };
    hooks.started = [&](const engine::ClusterConfig &c, const engine::SimOptions &o, engine::Simulation &sim) {
        recorder.beginRun(c, o, &sim);
    };
    hooks.finished = [&](const engine::StrategyResult &r) { recorder.endRun(r); };
    const int rc = runSim(cmd, hooks);
    recorder.close();
    const auto s = recorder.stats();
    std::printf("recorded %llu events, %llu routing samples in %llu chunks, %.2f MB to %s\n",
                (unsigned long long)s.events, (unsigned long long)s.routingSamples, (unsigned long long)s.chunks,
                double(s.bytes) / 1e6, cmd.recordPath.c_str());
    if (s.coalesced)
        std::fprintf(stderr,
                     "synaptic-node: warning: the disk fell behind: %llu metric samples coalesced into later ones "
                     "(no state event was lost)\n",
                     (unsigned long long)s.coalesced);
    if (!s.error.empty()) {
        std::fprintf(stderr, "synaptic-node: error: recording stopped: %s\n", s.error.c_str());
        return kExitFailure;
    }
    return rc;
}

int runInfo(const NodeCommand &cmd) {
    session::SessionFile file(cmd.recordingPath);
    const auto problems = file.verify();
    std::uint64_t events = 0;
    for (const auto &r : file.runs())
        events += r.events;
    if (cmd.json) {
        std::string runs = "[";
        for (const auto &r : file.runs()) {
            char line[512];
            std::snprintf(line, sizeof line,
                          "%s{\"run\": %d, \"strategy\": \"%s\", \"first_s\": %.17g, \"last_s\": %.17g, "
                          "\"events\": %llu, \"complete\": %s, \"dropped\": %llu, \"coalesced\": %llu}",
                          runs.size() > 1 ? ", " : "", r.start.run(), r.start.strategy().c_str(), r.firstTime,
                          r.lastTime, (unsigned long long)r.events, r.end ? "true" : "false",
                          (unsigned long long)(r.end ? r.end->dropped() : 0),
                          (unsigned long long)(r.end ? r.end->coalesced() : 0));
            runs += line;
        }
        runs += "]";
        std::printf("{\"file\": \"%s\", \"bytes\": %llu, \"format\": %u, \"indexed\": %s, \"chunks\": %zu, "
                    "\"events\": %llu, \"problems\": %zu, \"runs\": %s, \"writer\": %s}\n",
                    file.path().c_str(), (unsigned long long)file.fileSize(), unsigned(file.formatVersion()),
                    file.indexed() ? "true" : "false", file.chunks().size(), (unsigned long long)events,
                    problems.size(), runs.c_str(), file.metadata().empty() ? "null" : file.metadata().c_str());
    } else {
        std::printf("file        %s\n", file.path().c_str());
        std::printf("size        %.3f MB (%llu bytes), format %u, %zu chunks, %s\n", double(file.fileSize()) / 1e6,
                    (unsigned long long)file.fileSize(), unsigned(file.formatVersion()), file.chunks().size(),
                    file.indexed() ? "footer index present" : "no footer index (scanned)");
        std::printf("writer      %s\n", file.metadata().c_str());
        std::printf("events     %llu in %zu run(s)\n", (unsigned long long)events, file.runs().size());
        for (const auto &r : file.runs()) {
            std::printf("  run %d: %-12s %10.3f .. %.3f virtual s (%.3f s), %llu events, %s", r.start.run(),
                        r.start.strategy().c_str(), r.firstTime, r.lastTime, r.lastTime - r.firstTime,
                        (unsigned long long)r.events, r.end ? "complete" : "INCOMPLETE (writer stopped)");
            if (r.end && r.end->dropped())
                std::printf(", %llu events dropped while recording", (unsigned long long)r.end->dropped());
            if (r.end && r.end->coalesced())
                std::printf(", %llu metric samples coalesced while recording", (unsigned long long)r.end->coalesced());
            if (r.start.begins_at() > 0)
                std::printf(", recorded from %.3f s", r.start.begins_at());
            std::printf("\n");
        }
        std::printf("integrity   %s\n", problems.empty() ? "ok: every chunk's checksum and records check out"
                                                         : "DAMAGED (see warnings)");
    }
    printProblems(file.path(), problems);
    return problems.empty() ? kExitOk : kExitDamaged;
}

int runExport(const NodeCommand &cmd) {
    session::SessionFile file(cmd.recordingPath);
    std::vector<session::RunData> storage;
    engine::ProgressMeter meter(stderr, "export", progressStyle(cmd));
    const auto runs = selectRuns(file, cmd.run, storage, meter);
    meter.finish();
    if (!cmd.csvDir.empty()) {
        const auto files = session::writeCsvSeries(runs, cmd.csvDir);
        std::printf("CSV series written to %s (%zu files)\n", cmd.csvDir.c_str(), files.size());
    }
    if (!cmd.tracePath.empty()) {
        engine::writeFileAtomically(cmd.tracePath, session::chromeTraceJson(runs));
        std::printf("Chrome trace written to %s (open it in https://ui.perfetto.dev)\n", cmd.tracePath.c_str());
    }
    if (!cmd.reportPath.empty()) {
        engine::writeFileAtomically(cmd.reportPath, session::reportJson(runs, cmd.recordingPath));
        std::printf("report written to %s\n", cmd.reportPath.c_str());
    }
    printProblems(file.path(), file.problems());
    return file.problems().empty() ? kExitOk : kExitDamaged;
}

int runRerun(const NodeCommand &cmd) {
    session::SessionFile file(cmd.recordingPath);
    const int run = cmd.run < 0 ? 0 : cmd.run;
    if (run >= int(file.runs().size()))
        throw std::runtime_error(file.path() + ": no run " + std::to_string(run));
    engine::ProgressMeter meter(stderr, "rerun", progressStyle(cmd));
    const auto data = file.readRun(run, readingProgress(meter, run, file.runs().size()));
    printProblems(file.path(), file.problems());
    engine::SimProgress progress(meter, "rerun");
    const auto result =
        session::rerunAndCompare(file.runs()[std::size_t(run)], data, cmd.sim.threads, progress.wrap({}));
    if (result.statesOnly)
        std::printf("the recording's writer fell behind and folded samples: comparing state events only\n");
    if (result.identical) {
        std::printf("identical: %llu of %llu recorded events (%llu metrics) reproduced bit for bit\n",
                    (unsigned long long)result.compared, (unsigned long long)result.recorded,
                    (unsigned long long)result.metricsCompared);
        return kExitOk;
    }
    std::printf("DIFFERENT after %llu identical events: %s\n", (unsigned long long)result.compared,
                result.firstDifference.c_str());
    return kExitDamaged;
}

int runCheck(const NodeCommand &cmd) {
    session::SessionFile file(cmd.recordingPath);
    if (file.runs().empty())
        throw std::runtime_error(file.path() + ": holds no run");
    if (cmd.run >= int(file.runs().size()))
        throw std::runtime_error(file.path() + ": no run " + std::to_string(cmd.run) + " (it has " +
                                 std::to_string(file.runs().size()) + ")");
    std::size_t violated = 0;
    std::size_t audited = 0;
    engine::ProgressMeter meter(stderr, "check", progressStyle(cmd));
    for (int r = 0; r < int(file.runs().size()); ++r) {
        if (cmd.run >= 0 && r != cmd.run)
            continue;
        const auto &info = file.runs()[std::size_t(r)];
        const auto data = file.readRun(r, readingProgress(meter, r, file.runs().size()));
        meter.finish();
        meter.restart("check");
        std::vector<engine::AuditEvent> history;
        for (const auto &e : data.events)
            if (const auto *a = std::get_if<engine::AuditEvent>(&e))
                history.push_back(*a);
        const std::string name = "run " + std::to_string(r) + " (" + info.start.strategy() + ")";
        if (history.empty()) {
            std::printf("%s: no audit history recorded (written before issue 15, or not a synaptic run)\n",
                        name.c_str());
            continue;
        }
        ++audited;
        std::printf("  history: %s\n", session::describeAuditHistory(data.events).c_str());
        const auto scope = info.start.begins_at() > 0 ? engine::HistoryScope::StartsMidRun
                           : info.end                  ? engine::HistoryScope::Whole
                                                       : engine::HistoryScope::CutShort;
        const auto violations = engine::checkInvariants(history, scope);
        if (violations.empty()) {
            const char *note = scope == engine::HistoryScope::CutShort
                                   ? " (cut short: contributions without an outcome are indeterminate)"
                               : scope == engine::HistoryScope::StartsMidRun
                                   ? " (recorded from mid-run: lease, accounting and catch-up not checkable)"
                                   : "";
            std::printf("%s: every invariant holds over %zu audit events%s\n", name.c_str(), history.size(), note);
            continue;
        }
        ++violated;
        std::printf("%s: %zu violation(s)\n", name.c_str(), violations.size());
        constexpr std::size_t kShown = 20;
        for (std::size_t i = 0; i < violations.size() && i < kShown; ++i)
            std::printf("  %s\n", engine::describeViolation(violations[i]).c_str());
        if (violations.size() > kShown)
            std::printf("  ... and %zu more\n", violations.size() - kShown);
    }
    printProblems(file.path(), file.problems());
    if (violated > 0)
        return kExitDamaged;
    if (!file.problems().empty()) {
        std::fprintf(stderr, "synaptic-node: %s is damaged: what could be read was checked (above)\n",
                     file.path().c_str());
        return kExitDamaged;
    }
    if (audited == 0) {
        std::fprintf(stderr, "synaptic-node: error: %s: no run holds an audit history; nothing to check\n",
                     file.path().c_str());
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace synaptic::app
