#include "replay_recording.h"

#include "core/session/record_codec.h"

namespace synaptic::ui {

ReplayRecording loadRecording(const QString &path, int run, const session::SessionFile::Progress &progress) {
    // Opening scans a file without an index: the first tenth of the bar.
    auto part = [&](double from, double to) -> session::SessionFile::Progress {
        if (!progress)
            return {};
        return [=](double f) { return progress(from + (to - from) * f); };
    };
    session::SessionFile file(path.toStdString(), part(0, 0.1));
    if (file.runs().empty())
        throw std::runtime_error(path.toStdString() + ": holds no run (nothing was recorded)");
    if (run < 0 || run >= int(file.runs().size()))
        throw std::runtime_error(path.toStdString() + ": no run " + std::to_string(run) + " (it has " +
                                 std::to_string(file.runs().size()) + ")");
    ReplayRecording r;
    r.path = path;
    r.run = run;
    r.runCount = int(file.runs().size());
    r.info = file.runs()[std::size_t(run)];
    r.data = file.readRun(run, part(0.1, 1.0));
    r.config = engine::parseClusterConfig(r.info.start.config_json(), path.toStdString() + " (recorded config)");
    r.problems = file.problems();
    r.begin = r.info.firstTime;
    r.end = r.info.lastTime;
    for (const auto &e : r.data.events)
        r.end = std::max(r.end, session::eventTime(e));
    r.index = indexRun(r.data, int(r.config.regions.size()));
    return r;
}

} // namespace synaptic::ui
