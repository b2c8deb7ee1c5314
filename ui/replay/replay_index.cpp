#include "replay_index.h"

#include "ui/control_plane_window.h"

#include <algorithm>

namespace synaptic::ui {

namespace {

// One center sync's drift rows being folded: per region the worst lag and
// drift, computed as ChartFeeder::addDrift does (same start, same std::max
// order), so the folded rows give the charts the very same points.
struct DriftFold {
    double time = -1;
    std::size_t lastRow = 0;
    std::vector<std::uint64_t> lag;
    std::vector<double> drift; // -1: no row for the region yet
    bool open = false;

    void add(const engine::DriftEvent &d, std::size_t at) {
        if (!open) {
            std::fill(drift.begin(), drift.end(), -1.0);
            std::fill(lag.begin(), lag.end(), 0);
        }
        open = true;
        time = d.time;
        lastRow = at;
        const auto r = std::size_t(d.region);
        lag[r] = std::max(lag[r], d.versionLag);
        drift[r] = std::max(drift[r], d.parameterDrift);
    }
    void close(ReplayIndex &index) {
        if (!open)
            return;
        open = false;
        for (std::size_t r = 0; r < drift.size(); ++r)
            if (drift[r] != -1.0) {
                index.chartEvents.push_back(engine::DriftEvent{time, 0, int(r), lag[r], drift[r]});
                index.chartEventAt.push_back(lastRow);
            }
    }
};

bool drawnByCharts(const engine::SimEvent &e) {
    return std::holds_alternative<engine::MetricEvent>(e) || std::holds_alternative<engine::DriftEvent>(e) ||
           std::holds_alternative<engine::LinkBytesEvent>(e) || std::holds_alternative<engine::InferenceEvent>(e);
}

bool lasts(const engine::SimEvent &e) {
    return std::holds_alternative<engine::CommandEvent>(e) || std::holds_alternative<engine::EdgeImageEvent>(e) ||
           std::holds_alternative<engine::InferenceEvent>(e);
}

} // namespace

ReplayIndex indexRun(const session::RunData &run, int regions) {
    ReplayIndex index;
    DriftFold fold;
    fold.lag.assign(std::size_t(std::max(regions, 0)), 0);
    fold.drift.assign(fold.lag.size(), -1.0);
    auto keyframe = run.keyframes.begin();
    for (std::size_t i = 0; i < run.events.size(); ++i) {
        const auto &e = run.events[i];
        // A fold never spans a keyframe: a seek from it feeds the rows after it as they are.
        for (; keyframe != run.keyframes.end() && keyframe->event <= i; ++keyframe)
            fold.close(index);
        if (lasts(e))
            index.lasting.push_back(i);
        if (ControlPlaneWindow::logsEvent(e))
            index.logged.push_back(i);
        if (!drawnByCharts(e))
            continue;
        const auto *d = std::get_if<engine::DriftEvent>(&e);
        // Any other chart event closes the fold, which keeps the chart events
        // in stream order (a metric moves the steps axis the drift points use).
        if (!d || d->time != fold.time || d->region < 0 || d->region >= regions)
            fold.close(index);
        if (d && d->region >= 0 && d->region < regions) {
            fold.add(*d, i);
            continue;
        }
        index.chartEvents.push_back(e);
        index.chartEventAt.push_back(i);
    }
    fold.close(index);
    return index;
}

} // namespace synaptic::ui
