#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace synaptic::engine {

// How a ProgressMeter shows itself. The defaults are what the CLIs use:
// a bar redrawn in place on a terminal, otherwise a plain line every few
// seconds, so that logs and CI show the job is alive (issue 18 §1).
struct ProgressStyle {
    bool quiet = false;                 // --quiet: nothing at all
    std::optional<bool> terminal;       // unset: isatty() of the stream
    double plainEverySeconds = 5;       // plain mode: at most one line per this many wall seconds
    double redrawEverySeconds = 0.1;    // terminal: at most this many redraws per second
};

// Progress of one long job for a human: "label [####....] 42% detail ETA 1m05s".
// update() is cheap when nothing is due, so a loop may call it every
// iteration. Thread-safe: a watcher thread updates while the job's own
// thread prints lines through line().
class ProgressMeter {
public:
    ProgressMeter(std::FILE *stream, std::string label, ProgressStyle style = {});
    ~ProgressMeter();
    ProgressMeter(const ProgressMeter &) = delete;
    ProgressMeter &operator=(const ProgressMeter &) = delete;

    // `fraction` in [0, 1], or negative when the total is unknown (no bar,
    // no ETA). `detail` says where the job is in its own units.
    void update(double fraction, const std::string &detail);
    // A permanent line (a result, a warning): the bar is cleared first and
    // redrawn by the next update().
    void line(const std::string &text);
    // The job is over: the bar (if any) ends with `summary`, or a plain
    // line says it. Later updates are ignored until restart().
    void finish(const std::string &summary = {});
    // The next job of a sequence (one strategy after another): new label,
    // clock and ETA.
    void restart(std::string label);

    bool terminal() const { return m_terminal; }
    bool quiet() const { return m_style.quiet; }
    // Seconds since construction or restart().
    double elapsedSeconds() const;

private:
    using Clock = std::chrono::steady_clock;
    std::string render(double fraction, const std::string &detail) const;
    void clearBarLocked();

    std::FILE *m_stream;
    std::string m_label;
    ProgressStyle m_style;
    bool m_terminal;
    mutable std::mutex m_mutex;
    Clock::time_point m_start;
    std::optional<Clock::time_point> m_lastShown;
    bool m_barOpen = false;
    bool m_finished = false;
};

// "1h02m", "3m05s", "12s"; "?" for a negative or non-finite value.
std::string formatDuration(double seconds);

} // namespace synaptic::engine
