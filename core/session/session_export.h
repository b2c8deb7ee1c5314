#pragma once

#include "session_file.h"

#include <string>
#include <vector>

namespace synaptic::session {

struct ExportRun {
    const RunInfo *info = nullptr;
    const RunData *data = nullptr;
};

// CSV series of the runs into `dir` (created if missing): metrics.csv,
// link_bytes.csv, drift.csv, consistency.csv, leases.csv, commands.csv,
// routing_changes.csv; one row per event, a `run` column first, doubles
// printed exactly, NaN as an empty cell. Returns the files written; throws
// std::runtime_error naming the file it could not write.
std::vector<std::string> writeCsvSeries(const std::vector<ExportRun> &runs, const std::string &dir);

// Chrome trace-event JSON (opens in Perfetto and chrome://tracing): one
// process per run, one track per node; lease modes as slices, commands and
// center checks as instants, accuracy, loss, egress bytes/s and version lag
// as counters. Timestamps are virtual microseconds.
std::string chromeTraceJson(const std::vector<ExportRun> &runs);

// The same JSON report `synaptic-node sim --report` writes, from the runs'
// end records; a run whose writer was killed gets what its events tell
// (curve, events, virtual seconds) and "complete": false.
std::string reportJson(const std::vector<ExportRun> &runs, const std::string &recordingPath);

} // namespace synaptic::session
