#include "session_recorder.h"

#include "chunk_file.h"
#include "record_codec.h"
#include "record_stream.h"
#include "session_metadata.h"
#include "session_state.h"

#include "core/engine/compute_threads.h"
#include "core/engine/events/coalescing_queue.h"
#include "core/engine/sim/cluster_config_json.h"
#include "core/engine/sim/sim_event_samples.h"
#include "core/engine/sim/sim_runner.h"

#include <ATen/Parallel.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <variant>

namespace synaptic::session {

// A named namespace, not an anonymous one: SessionRecorder::Impl holds a
// queue of these, and a member whose type has internal linkage is a
// -Wsubobject-linkage warning once this file is compiled in a unity batch.
namespace recorder_queue {

struct RoutingSample {
    double time = 0;
    std::shared_ptr<const engine::RoutingSnapshot> snapshot;
};
struct RunStartItem {
    std::shared_ptr<pb::RunStart> start;
};
struct RunEndItem {
    std::shared_ptr<pb::RunEnd> end;
};
using Item = std::variant<engine::SimEvent, RoutingSample, RunStartItem, RunEndItem>;

// What the writer may coalesce when the disk falls behind: the engine's
// metric samples (as the GUI does) and routing samples (each a whole table
// that supersedes the one before); never a state event or a run's bounds,
// and never across them (each run of a --compare file keeps its own totals).
struct ItemSamples {
    using Key = std::pair<int, engine::SimEventSamples::Key>;
    static bool isSample(const Item &item) {
        if (const auto *e = std::get_if<engine::SimEvent>(&item))
            return engine::SimEventSamples::isSample(*e);
        return std::holds_alternative<RoutingSample>(item);
    }
    static bool isBarrier(const Item &item) {
        return std::holds_alternative<RunStartItem>(item) || std::holds_alternative<RunEndItem>(item);
    }
    static Key sampleKey(const Item &item) {
        if (const auto *e = std::get_if<engine::SimEvent>(&item))
            return {0, engine::SimEventSamples::sampleKey(*e)};
        return {1, {}};
    }
    static void absorb(Item &newer, const Item &older) {
        if (auto *e = std::get_if<engine::SimEvent>(&newer))
            engine::SimEventSamples::absorb(*e, std::get<engine::SimEvent>(older));
        // A routing sample: the newer table stands.
    }
};

} // namespace recorder_queue

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

} // namespace

struct SessionRecorder::Impl {
    Impl(const std::string &path, const std::string &tool, RecorderOptions o)
        : options(o), writer(path, recordingMetadata(tool)), queue(o.queueCapacity) {}

    RecorderOptions options;
    ChunkWriter writer;
    engine::CoalescingQueue<recorder_queue::Item, recorder_queue::ItemSamples> queue;

    // Engine thread.
    const engine::Simulation *sim = nullptr;
    double nextRoutingTime = 0;
    Clock::time_point nextRoutingWall = Clock::now();
    int runs = 0;

    // Writer thread.
    std::string chunk;
    double chunkFirst = 0, chunkLast = 0;
    bool chunkHasTime = false;
    bool chunkKeyframe = false;
    std::uint64_t chunkFirstEvent = 0;
    std::uint32_t chunkEvents = 0;
    Clock::time_point chunkOpened = Clock::now();
    SessionState state;
    int run = -1;
    std::uint64_t runCoalesced = 0; // samples folded in this run (a run's start and end are barriers)
    double lastKeyframe = -1e300;
    pb::Index index;

    // Shared.
    mutable std::mutex mutex;
    std::condition_variable wake;
    bool closing = false;          // guarded by mutex
    RecorderStats stats;           // guarded by mutex
    std::thread thread;

    void loop() {
        for (;;) {
            bool last = false;
            {
                std::unique_lock lock(mutex);
                wake.wait_for(lock, std::chrono::milliseconds(20));
                last = closing;
            }
            queue.drainInto([this](recorder_queue::Item &&item, std::uint64_t folded) {
                runCoalesced += folded;
                take(std::move(item));
            });
            if (!chunk.empty() && (last || secondsSince(chunkOpened) >= options.chunkWallSeconds))
                flush();
            {
                std::lock_guard lock(mutex);
                stats.coalesced = queue.coalesced();
            }
            if (last && queue.size() == 0)
                break;
        }
        finish();
    }

    bool failed() {
        std::lock_guard lock(mutex);
        return !stats.error.empty();
    }
    void fail(const std::string &what) {
        std::lock_guard lock(mutex);
        if (stats.error.empty())
            stats.error = what;
    }

    void append(const pb::Record &record) {
        if (chunk.empty()) {
            chunkOpened = Clock::now();
            chunkHasTime = false;
            chunkEvents = 0;
            chunkFirstEvent = state.events;
            chunkKeyframe = run >= 0 && (state.time - lastKeyframe >= options.keyframeEverySeconds ||
                                         record.has_run_start());
            if (chunkKeyframe && !record.has_run_start()) {
                pb::Record k;
                *k.mutable_keyframe() = state.toKeyframe();
                appendRecord(chunk, k);
                lastKeyframe = state.time;
                stamp(state.time);
            }
        }
        appendRecord(chunk, record);
    }

    void stamp(double t) {
        if (!chunkHasTime) {
            chunkFirst = chunkLast = t;
            chunkHasTime = true;
        } else {
            chunkLast = std::max(chunkLast, t);
        }
    }

    void take(recorder_queue::Item item) {
        if (failed())
            return;
        try {
            if (auto *e = std::get_if<engine::SimEvent>(&item)) {
                pb::Record r;
                *r.mutable_event() = toProto(*e);
                append(r);
                stamp(eventTime(*e));
                state.apply(*e);
                ++chunkEvents;
                std::lock_guard lock(mutex);
                ++stats.events;
                stats.lastTime = state.time;
            } else if (auto *s = std::get_if<recorder_queue::RoutingSample>(&item)) {
                pb::Record r;
                *r.mutable_routing() = toProto(*s->snapshot, s->time);
                append(r);
                stamp(s->time);
                state.applyRouting(s->snapshot, s->time);
                std::lock_guard lock(mutex);
                ++stats.routingSamples;
            } else if (auto *b = std::get_if<recorder_queue::RunStartItem>(&item)) {
                if (!chunk.empty())
                    flush();
                run = b->start->run();
                runCoalesced = 0;
                state = SessionState{};
                state.time = b->start->begins_at();
                lastKeyframe = state.time;
                *index.add_runs() = *b->start;
                pb::Record r;
                *r.mutable_run_start() = *b->start;
                append(r);
                stamp(state.time);
            } else if (auto *x = std::get_if<recorder_queue::RunEndItem>(&item)) {
                x->end->set_coalesced(runCoalesced);
                *index.add_ends() = *x->end;
                pb::Record r;
                *r.mutable_run_end() = *x->end;
                append(r);
                stamp(state.time);
                flush();
            }
            if (chunk.size() >= options.chunkRawBytes)
                flush();
        } catch (const std::exception &e) {
            fail(e.what());
        }
    }

    void flush() {
        if (chunk.empty() || failed())
            return;
        try {
            const std::uint64_t at = writer.write(chunk, chunkFirst, chunkLast);
            auto *entry = index.add_chunks();
            entry->set_offset(at);
            entry->set_run(run);
            entry->set_first_time(chunkFirst);
            entry->set_last_time(chunkLast);
            entry->set_first_event(chunkFirstEvent);
            entry->set_events(chunkEvents);
            entry->set_keyframe(chunkKeyframe);
            std::lock_guard lock(mutex);
            ++stats.chunks;
            stats.bytes = writer.bytesWritten();
        } catch (const std::exception &e) {
            fail(e.what());
        }
        chunk.clear();
    }

    void finish() {
        flush();
        if (failed())
            return;
        try {
            std::string raw;
            pb::Record r;
            *r.mutable_index() = index;
            appendRecord(raw, r);
            const double first = index.chunks_size() ? index.chunks(0).first_time() : 0;
            writer.finish(raw, first, state.time);
            std::lock_guard lock(mutex);
            stats.bytes = writer.bytesWritten();
        } catch (const std::exception &e) {
            fail(e.what());
        }
    }
};

SessionRecorder::SessionRecorder(const std::string &path, const std::string &tool, RecorderOptions options)
    : m_impl(std::make_unique<Impl>(path, tool, options)) {
    m_impl->stats.bytes = m_impl->writer.bytesWritten();
    m_impl->thread = std::thread([this] { m_impl->loop(); });
}

SessionRecorder::~SessionRecorder() { close(); }

void SessionRecorder::beginRun(const engine::ClusterConfig &config, const engine::SimOptions &options,
                               const engine::Simulation *sim) {
    auto &d = *m_impl;
    d.sim = sim;
    const double beginsAt = sim ? sim->virtualNow() : 0;
    d.nextRoutingTime = beginsAt;
    d.nextRoutingWall = Clock::now();
    auto start = std::make_shared<pb::RunStart>();
    start->set_run(d.runs++);
    start->set_strategy(config.strategy);
    start->set_config_json(engine::clusterConfigToJson(config));
    start->set_seed(config.seed);
    start->set_steps_per_edge(options.stepsPerEdge);
    start->set_virtual_seconds(options.virtualSeconds);
    start->set_target_accuracy(options.targetAccuracy);
    start->set_eval_every_samples(options.evalEverySamples);
    start->set_evaluate_regions(options.evaluateRegions);
    start->set_final_full_evaluation(options.finalFullEvaluation);
    start->set_link_report_seconds(options.linkReportSeconds);
    start->set_device(options.device);
    start->set_threads(at::get_num_threads());
    const int blas = engine::blasThreads();
    start->set_blas_threads(blas > 0 ? blas : -1); // 0 is a recording from before the field
    for (const auto &c : options.commands)
        *start->add_commands() = toProto(c);
    start->set_started_utc(utcNow());
    start->set_begins_at(beginsAt);
    d.queue.push(recorder_queue::RunStartItem{std::move(start)});
}

void SessionRecorder::record(const engine::SimEvent &event) {
    auto &d = *m_impl;
    d.queue.push(event);
    if (!d.sim)
        return;
    // Routing samples are taken here, on the engine thread between two
    // events, so each one is consistent with the stream around it.
    const double t = eventTime(event);
    if (t >= d.nextRoutingTime || Clock::now() >= d.nextRoutingWall) {
        d.queue.push(recorder_queue::RoutingSample{t, d.sim->routing()});
        d.nextRoutingTime = t + d.options.routingEverySeconds;
        d.nextRoutingWall = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(d.options.routingEveryWallSeconds));
    }
}

void SessionRecorder::endRun(const engine::StrategyResult &result, bool finished) {
    auto &d = *m_impl;
    auto end = std::make_shared<pb::RunEnd>();
    end->set_run(d.runs - 1);
    end->set_virtual_seconds(result.virtualSeconds);
    end->set_wall_seconds(result.wallSeconds);
    end->set_events(result.events);
    end->set_event_hash(result.eventHash);
    end->set_samples(result.samples);
    end->set_final_accuracy(result.finalAccuracy);
    end->set_stopped(result.stoppedEarly);
    if (finished)
        end->set_report_json(engine::strategyResultJson(result));
    d.queue.push(recorder_queue::RunEndItem{std::move(end)});
    d.sim = nullptr;
}

std::function<void(const engine::SimEvent &)> SessionRecorder::observer() {
    return [this](const engine::SimEvent &e) { record(e); };
}

void SessionRecorder::close() {
    auto &d = *m_impl;
    {
        std::lock_guard lock(d.mutex);
        d.closing = true;
    }
    d.wake.notify_all();
    if (d.thread.joinable())
        d.thread.join();
}

RecorderStats SessionRecorder::stats() const {
    std::lock_guard lock(m_impl->mutex);
    RecorderStats s = m_impl->stats;
    s.coalesced = m_impl->queue.coalesced();
    return s;
}

} // namespace synaptic::session
