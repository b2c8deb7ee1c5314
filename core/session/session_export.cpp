#include "session_export.h"

#include "record_codec.h"

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

namespace synaptic::session {

using nlohmann::json;

namespace {

std::string num(double v) {
    if (std::isnan(v))
        return "";
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// Node names of a run (0 = center, edge e = e + 1), from its recorded config.
std::vector<std::string> nodeNames(const RunInfo &run) {
    std::vector<std::string> names{"center"};
    try {
        const auto config = engine::parseClusterConfig(run.start.config_json(), "recording");
        for (const auto &r : config.regions)
            for (const auto &e : r.edges)
                names.push_back(e.name);
    } catch (const std::exception &) {
        // Names are cosmetic here; numbers stand in.
    }
    return names;
}

// 64-bit: `edge + 1` of a recorded (hostile) INT_MAX must not overflow.
std::string nodeName(const std::vector<std::string> &names, std::int64_t node) {
    return node >= 0 && node < std::int64_t(names.size()) ? names[std::size_t(node)]
                                                          : "node " + std::to_string(node);
}

class CsvFile {
public:
    CsvFile(const std::string &path, const std::string &header) : m_path(path), m_out(path) {
        if (!m_out)
            throw std::runtime_error(path + ": cannot write");
        m_out << header << '\n';
    }
    void row(const std::string &line) { m_out << line << '\n'; }
    void close() {
        m_out.close();
        if (!m_out)
            throw std::runtime_error(m_path + ": write failed");
    }

private:
    std::string m_path;
    std::ofstream m_out;
};

} // namespace

std::vector<std::string> writeCsvSeries(const std::vector<ExportRun> &runs, const std::string &dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw std::runtime_error(dir + ": cannot create the directory (" + ec.message() + ")");
    auto path = [&](const char *name) { return (std::filesystem::path(dir) / name).string(); };
    CsvFile metrics(path("metrics.csv"), "run,time_s,scope,samples,loss,accuracy,exit_accuracy");
    CsvFile links(path("link_bytes.csv"), "run,time_s,interval_s,from,to,bytes");
    CsvFile drift(path("drift.csv"), "run,time_s,shard,region,version_lag,parameter_drift");
    CsvFile checks(path("consistency.csv"), "run,time_s,round,checked,mismatches,max_drift");
    CsvFile leases(path("leases.csv"), "run,time_s,edge,mode,epoch");
    CsvFile commands(path("commands.csv"), "run,time_s,command,applied,detail");
    CsvFile routing(path("routing_changes.csv"), "run,time_s,shard,region,owner,revision,reason");
    CsvFile inference(path("inference.csv"), "run,time_s,interval_s,requests,at_edge,degraded,correct_edge,"
                                             "correct_center,p50_ms,p95_ms,p99_ms,bytes_to_center,raw_input_bytes");
    CsvFile images(path("edge_images.csv"), "run,time_s,edge,version,bytes");
    for (const auto &r : runs) {
        const auto names = nodeNames(*r.info);
        const std::string run = std::to_string(r.info->start.run()) + ",";
        for (const auto &e : r.data->events) {
            const std::string t = run + num(eventTime(e)) + ",";
            if (const auto *m = std::get_if<engine::MetricEvent>(&e))
                metrics.row(t + quoted(m->scope) + "," + std::to_string(m->samples) + "," + num(m->loss) + "," +
                            num(m->accuracy) + "," + num(m->exitAccuracy));
            else if (const auto *l = std::get_if<engine::LinkBytesEvent>(&e))
                links.row(t + num(l->interval) + "," + quoted(nodeName(names, l->from)) + "," +
                          quoted(nodeName(names, l->to)) + "," + std::to_string(l->bytes));
            else if (const auto *d = std::get_if<engine::DriftEvent>(&e))
                drift.row(t + std::to_string(d->shard) + "," + std::to_string(d->region) + "," +
                          std::to_string(d->versionLag) + "," + num(d->parameterDrift));
            else if (const auto *c = std::get_if<engine::ConsistencyEvent>(&e))
                checks.row(t + std::to_string(c->round) + "," + std::to_string(c->checked) + "," +
                           std::to_string(c->mismatches) + "," + num(c->maxDrift));
            else if (const auto *le = std::get_if<engine::LeaseEvent>(&e))
                leases.row(t + quoted(nodeName(names, std::int64_t(le->edge) + 1)) + "," + quoted(le->mode) + "," +
                           std::to_string(le->epoch));
            else if (const auto *co = std::get_if<engine::CommandEvent>(&e))
                commands.row(t + quoted(co->command) + "," + (co->applied ? "1" : "0") + "," + quoted(co->detail));
            else if (const auto *in = std::get_if<engine::InferenceEvent>(&e))
                inference.row(t + num(in->interval) + "," + std::to_string(in->requests) + "," +
                              std::to_string(in->atEdge) + "," + std::to_string(in->degraded) + "," +
                              std::to_string(in->correctEdge) + "," + std::to_string(in->correctCenter) + "," +
                              num(in->p50Ms) + "," + num(in->p95Ms) + "," + num(in->p99Ms) + "," +
                              std::to_string(in->bytesToCenter) + "," + std::to_string(in->rawInputBytes));
            else if (const auto *im = std::get_if<engine::EdgeImageEvent>(&e))
                images.row(t + (im->edge < 0 ? std::string("center") : quoted(nodeName(names, std::int64_t(im->edge) + 1))) +
                           "," + std::to_string(im->version) + "," + std::to_string(im->bytes));
            else if (const auto *ro = std::get_if<engine::RoutingEvent>(&e))
                routing.row(t + std::to_string(ro->shard) + "," + std::to_string(ro->region) + "," +
                            quoted(nodeName(names, std::int64_t(ro->owner) + 1)) + "," + std::to_string(ro->revision) + "," +
                            quoted(ro->reason));
        }
    }
    std::vector<std::string> written;
    for (auto *f : {&metrics, &links, &drift, &checks, &leases, &commands, &routing, &inference, &images})
        f->close();
    for (const char *name : {"metrics.csv", "link_bytes.csv", "drift.csv", "consistency.csv", "leases.csv",
                             "commands.csv", "routing_changes.csv", "inference.csv", "edge_images.csv"})
        written.push_back(path(name));
    return written;
}

std::string chromeTraceJson(const std::vector<ExportRun> &runs) {
    json events = json::array();
    auto us = [](double seconds) { return seconds * 1e6; };
    for (const auto &r : runs) {
        const int pid = r.info->start.run() + 1;
        const auto names = nodeNames(*r.info);
        events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid},
                          {"args", {{"name", "run " + std::to_string(pid - 1) + ": " + r.info->start.strategy()}}}});
        for (std::size_t n = 0; n < names.size(); ++n)
            events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", n},
                              {"args", {{"name", names[n]}}}});
        std::map<int, std::pair<double, std::string>> openLease; // edge -> (since, mode)
        std::map<int, double> egressTime;                        // node -> interval end
        std::map<int, double> egress;                            // node -> bytes in that interval
        double end = r.info->lastTime;
        auto flushEgress = [&](int node) {
            const auto it = egress.find(node);
            if (it == egress.end())
                return;
            events.push_back({{"ph", "C"}, {"name", "egress bytes/s " + nodeName(names, node)}, {"pid", pid},
                              {"ts", us(egressTime[node])}, {"args", {{"bytes_per_s", it->second}}}});
            egress.erase(it);
        };
        for (const auto &e : r.data->events) {
            const double t = eventTime(e);
            end = std::max(end, t);
            if (const auto *le = std::get_if<engine::LeaseEvent>(&e)) {
                if (auto it = openLease.find(le->edge); it != openLease.end())
                    events.push_back({{"ph", "X"}, {"name", it->second.second}, {"cat", "lease"}, {"pid", pid},
                                      {"tid", std::int64_t(le->edge) + 1}, {"ts", us(it->second.first)},
                                      {"dur", us(t - it->second.first)}});
                openLease[le->edge] = {t, le->mode};
            } else if (const auto *c = std::get_if<engine::CommandEvent>(&e)) {
                events.push_back({{"ph", "i"}, {"s", "p"}, {"name", c->command}, {"cat", "command"}, {"pid", pid},
                                  {"tid", 0}, {"ts", us(t)},
                                  {"args", {{"applied", c->applied}, {"detail", c->detail}}}});
            } else if (const auto *ch = std::get_if<engine::ConsistencyEvent>(&e)) {
                events.push_back({{"ph", "i"}, {"s", "t"}, {"name", "center check"}, {"cat", "consistency"},
                                  {"pid", pid}, {"tid", 0}, {"ts", us(t)},
                                  {"args", {{"round", ch->round}, {"mismatches", ch->mismatches},
                                            {"max_drift", ch->maxDrift}}}});
            } else if (const auto *m = std::get_if<engine::MetricEvent>(&e)) {
                if (!std::isnan(m->accuracy))
                    events.push_back({{"ph", "C"}, {"name", "accuracy " + m->scope}, {"pid", pid}, {"ts", us(t)},
                                      {"args", {{"accuracy", m->accuracy}}}});
                if (!std::isnan(m->loss))
                    events.push_back({{"ph", "C"}, {"name", "loss " + m->scope}, {"pid", pid}, {"ts", us(t)},
                                      {"args", {{"loss", m->loss}}}});
            } else if (const auto *l = std::get_if<engine::LinkBytesEvent>(&e)) {
                if (egressTime.count(l->from) && egressTime[l->from] != t)
                    flushEgress(l->from);
                egressTime[l->from] = t;
                egress[l->from] += l->interval > 0 ? double(l->bytes) / l->interval : 0;
            } else if (const auto *d = std::get_if<engine::DriftEvent>(&e)) {
                events.push_back({{"ph", "C"}, {"name", "version lag shard " + std::to_string(d->shard)},
                                  {"pid", pid}, {"ts", us(t)},
                                  {"args", {{"region " + std::to_string(d->region), d->versionLag}}}});
            }
        }
        for (const auto &[node, unused] : std::map<int, double>(egress))
            flushEgress(node);
        for (const auto &[edge, open] : openLease)
            events.push_back({{"ph", "X"}, {"name", open.second}, {"cat", "lease"}, {"pid", pid}, {"tid", std::int64_t(edge) + 1},
                              {"ts", us(open.first)}, {"dur", us(end - open.first)}});
    }
    return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

std::string reportJson(const std::vector<ExportRun> &runs, const std::string &recordingPath) {
    engine::SimRunRequest request;
    request.configPath = recordingPath;
    int threads = 0;
    int blasThreads = 0;
    std::vector<std::string> entries;
    for (const auto &r : runs) {
        const auto &s = r.info->start;
        request.seed = s.seed();
        request.stepsPerEdge = s.steps_per_edge();
        request.virtualSeconds = s.virtual_seconds();
        request.targetAccuracy = s.target_accuracy();
        request.evalEverySamples = s.eval_every_samples();
        request.device = s.device();
        request.strategies.push_back(s.strategy());
        threads = s.threads();
        blasThreads = std::max(0, s.blas_threads()); // the report's 0: another BLAS or not recorded
        if (r.info->end && !r.info->end->report_json().empty()) {
            json entry = json::parse(r.info->end->report_json());
            entry["complete"] = true;
            entries.push_back(entry.dump());
            continue;
        }
        json curve = json::array();
        for (const auto &e : r.data->events)
            if (const auto *m = std::get_if<engine::MetricEvent>(&e); m && m->scope == "global")
                curve.push_back({{"virtual_seconds", m->time}, {"samples", m->samples}, {"accuracy", m->accuracy},
                                 {"exit_accuracy", m->exitAccuracy},
                                 {"loss", std::isnan(m->loss) ? json(nullptr) : json(m->loss)}});
        entries.push_back(json{{"strategy", s.strategy()},
                               {"complete", false},
                               {"events", r.data->events.size()},
                               {"virtual_seconds", r.info->lastTime},
                               {"curve", curve},
                               {"notes", {"the recording ends before this run did (writer killed); "
                                          "figures are what its events tell"}}}
                              .dump());
    }
    return engine::simReportJson(request, entries, threads, blasThreads);
}

} // namespace synaptic::session
