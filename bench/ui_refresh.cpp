// synaptic-bench-ui-refresh: what the control plane costs the GUI thread.
// Drives the real ControlPlaneWindow offscreen on a 64-edge, 8-region
// cluster with >= 2,000 shards: engine-shaped telemetry arrives at 10 Hz on
// another thread (TelemetryFeed: real routing-table snapshots, link
// counters, metrics, center-sync drift rows) and the GUI drains it every
// 40 ms as ClusterSession does. Reports the GUI thread's time per refresh
// (ingest plus the layout and repaint work it posts, run at once) against the 16 ms
// frame budget, and the GUI event loop's latency idle (the baseline), under
// that feed, and while the real engine trains the default cluster on
// Fashion-MNIST in the same process. The shard map dock shows its chips
// (issue 18 §2; --shard-view table: the tree, as before) and repaints in
// full on every refresh, as if every refresh changed it. Exits 3 when the
// p99 misses the budget. Progress goes to stderr (--quiet: none): drawn
// between phases, between prefill ticks and from a 1 Hz timer on the GUI
// thread during the feed and training phases, never inside a measured
// refresh or repaint and never during the idle baseline. The figures go to
// stdout.
#include "bench_progress.h"
#include "ui_feed.h"

#include "core/engine/allocator.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/synapse/shard_planner.h"
#include "ui/charts/time_series_chart.h"
#include "ui/control_plane_window.h"
#include "ui/dialogs/new_cluster_dialog.h"
#include "ui/views/shard_chip_view.h"
#include "ui/views/shard_map_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

using namespace synaptic;

namespace {

constexpr double kBudgetMs = 16.0;

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, std::size_t(p / 100.0 * double(v.size() - 1) + 0.5));
    return v[i];
}

// Event-loop latency: a 5 ms precise timer; how late each firing is.
class LoopProbe {
public:
    LoopProbe() {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(5);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const double now = double(m_clock.nsecsElapsed()) / 1e6;
            if (m_last >= 0)
                m_late.push_back(std::max(0.0, now - m_last - 5.0));
            m_last = now;
        });
    }
    void start() {
        m_late.clear();
        m_last = -1;
        m_clock.start();
        m_timer.start();
    }
    std::vector<double> stop() {
        m_timer.stop();
        return m_late;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = -1;
    std::vector<double> m_late;
};

void runFor(double seconds) {
    QEventLoop loop;
    QTimer::singleShot(int(seconds * 1000), &loop, &QEventLoop::quit);
    loop.exec();
}

QJsonObject latencyJson(const std::vector<double> &late) {
    return {{"samples", qint64(late.size())}, {"p50_ms", percentile(late, 50)}, {"p99_ms", percentile(late, 99)},
            {"max_ms", percentile(late, 100)}};
}

} // namespace

int main(int argc, char **argv) {
    synaptic::engine::keepFreedTensorMemory(); // before any tensor: core/engine/allocator.h
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName("synaptic-bench-ui-refresh");
    QCommandLineParser parser;
    parser.setApplicationDescription("GUI-thread time per refresh of the control plane on a large cluster.");
    parser.addHelpOption();
    const QCommandLineOption regionsOpt("regions", "Regions.", "N", "8");
    const QCommandLineOption edgesOpt("edges-per-region", "Edges per region.", "N", "8");
    const QCommandLineOption shardsOpt("min-shards", "At least this many shards.", "N", "2000");
    const QCommandLineOption secondsOpt("seconds", "Wall seconds of 10 Hz feed to measure.", "S", "20");
    const QCommandLineOption hzOpt("hz", "Engine ticks per wall second.", "HZ", "10");
    const QCommandLineOption prefillOpt("prefill-hours", "Virtual hours of history in the charts first.", "H", "1");
    const QCommandLineOption trainOpt("train-seconds", "Wall seconds of real training (0 = skip).", "S", "20");
    const QCommandLineOption configOpt("config", "Base cluster config.", "FILE", SYNAPTIC_DEFAULT_CONFIG);
    const QCommandLineOption jsonOpt("json", "Write the figures as JSON to FILE.", "FILE");
    const QCommandLineOption viewOpt("shard-view", "The shard map shown: chips or table (the tree).", "VIEW", "chips");
    const QCommandLineOption pngOpt("shard-map-png", "Save a picture of the shard map dock (floated, 960 x 720) to FILE.",
                                    "FILE");
    const QCommandLineOption quietOpt("quiet", "No progress on stderr.");
    parser.addOptions({regionsOpt, edgesOpt, shardsOpt, secondsOpt, hzOpt, prefillOpt, trainOpt, configOpt, jsonOpt,
                       viewOpt, pngOpt, quietOpt});
    parser.process(app);
    const int regions = parser.value(regionsOpt).toInt(), perRegion = parser.value(edgesOpt).toInt();
    const int minShards = parser.value(shardsOpt).toInt();
    const double seconds = parser.value(secondsOpt).toDouble(), hz = parser.value(hzOpt).toDouble();
    const double prefillHours = parser.value(prefillOpt).toDouble(), trainSeconds = parser.value(trainOpt).toDouble();
    const QString shardView = parser.value(viewOpt);
    if (shardView != "chips" && shardView != "table") {
        std::fprintf(stderr, "synaptic-bench-ui-refresh: error: --shard-view is chips or table\n");
        return 2;
    }
    if (regions < 1 || perRegion < 1 || minShards < 1 || seconds <= 0 || hz <= 0 || prefillHours < 0 || trainSeconds < 0) {
        std::fprintf(stderr, "synaptic-bench-ui-refresh: error: every number must be positive\n");
        return 2;
    }
    engine::ClusterConfig base;
    try {
        base = engine::loadClusterConfig(parser.value(configOpt).toStdString());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "synaptic-bench-ui-refresh: error: %s\n", e.what());
        return 2;
    }

    // Runs: the idle baseline, the history, the feed, the shard map's
    // repaints, the training.
    bench::BenchProgress progress("ui_refresh", parser.isSet(quietOpt), trainSeconds > 0 ? 5 : 4);
    // During a phase of the event loop: a 1 Hz timer on the GUI thread, between refreshes.
    QElapsedTimer phaseClock;
    double phaseSeconds = 1;
    QTimer ticker;
    ticker.setInterval(1000);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const double done = double(phaseClock.elapsed()) / 1e3;
        char text[64];
        std::snprintf(text, sizeof text, "%.0f of %.0f s", done, phaseSeconds);
        progress.update(done / phaseSeconds, text);
    });
    auto tickFor = [&](double phaseLength) {
        phaseSeconds = std::max(1e-3, phaseLength);
        phaseClock.start();
        ticker.start();
    };

    // The cluster and its routing table.
    progress.phase("planning the shards, opening the window");
    const auto config = ui::makeCluster(base, regions, perRegion, "synaptic", 1);
    engine::PlanTopology topology;
    topology.edgesPerRegion.assign(std::size_t(regions), perRegion);
    engine::PlanOptions options;
    const auto layers = bench::wideModelLayout(minShards);
    std::int64_t parameters = 0;
    for (const auto &l : layers)
        parameters += l.parameterCount();
    options.maxShardFraction = 0.5 / double(minShards); // small enough that rows, not the bound, limit shard size
    const auto plan = engine::planShards(layers, topology, options);
    if (int(plan.shards.size()) < minShards) {
        progress.line("synaptic-bench-ui-refresh: error: planned only " + std::to_string(plan.shards.size()) + " shards");
        return 1;
    }
    bench::TelemetryFeed feed(plan, topology, 3.2);

    ui::ControlPlaneWindow window(config, QStringLiteral("ui_refresh bench"));
    window.resize(1600, 1000);
    auto *shardPanel = window.findChild<ui::ShardMapPanel *>();
    shardPanel->setMode(shardView == "chips" ? ui::ShardMapPanel::Mode::Chips : ui::ShardMapPanel::Mode::Table);
    QAbstractItemView *shardMapView = shardView == "chips" ? static_cast<QAbstractItemView *>(shardPanel->chips())
                                                            : static_cast<QAbstractItemView *>(shardPanel->tree());
    window.show();
    window.ingestRouting(feed.tick(0.0).routing);
    app.processEvents();

    // Baseline: the idle window's event loop (nothing drawn during it).
    progress.next("idle event loop (baseline), 3 s");
    LoopProbe probe;
    probe.start();
    runFor(3);
    const auto idleLate = probe.stop();

    // An hour of history, so thinning is what keeps the charts fast.
    progress.next("history: " + QString::number(prefillHours).toStdString() + " virtual h into the charts");
    QElapsedTimer prefillClock;
    prefillClock.start();
    std::size_t prefillEvents = 0;
    feed.setSyncSeconds(60); // a sync is shards × regions drift rows: keep the hour's history to minutes of work
    for (double t = 0; t < prefillHours * 3600; t += 1.0) {
        auto tick = feed.tick(1.0);
        prefillEvents += tick.events.size();
        window.ingest(QVector<engine::SimEvent>(tick.events.begin(), tick.events.end()));
        progress.update(t / (prefillHours * 3600)); // rate-limited: a clock read most ticks
    }
    window.ingestRouting(feed.tick(0.0).routing);
    feed.setSyncSeconds(3.2);
    app.processEvents();
    const double prefillSeconds = prefillClock.elapsed() / 1e3;

    // The measured feed: ticks made on another thread at `hz`, drained every 40 ms.
    std::mutex mutex;
    std::deque<bench::FeedTick> queue;
    std::atomic<bool> stop{false};
    std::thread engineThread([&] {
        auto next = std::chrono::steady_clock::now();
        while (!stop) {
            auto tick = feed.tick(1.0 / hz);
            {
                std::lock_guard lock(mutex);
                queue.push_back(std::move(tick));
            }
            next += std::chrono::microseconds(std::int64_t(1e6 / hz));
            std::this_thread::sleep_until(next);
        }
    });
    std::vector<double> refreshMs;
    std::vector<double> eventsPerRefresh;
    std::vector<double> routingMs, eventsMs, paintMs; // where a refresh's time goes
    QTimer drain;
    drain.setInterval(40);
    QObject::connect(&drain, &QTimer::timeout, [&] {
        std::deque<bench::FeedTick> ticks;
        {
            std::lock_guard lock(mutex);
            ticks.swap(queue);
        }
        if (ticks.empty())
            return;
        QVector<engine::SimEvent> batch;
        for (const auto &t : ticks)
            batch.append(QVector<engine::SimEvent>(t.events.begin(), t.events.end()));
        QElapsedTimer t;
        t.start();
        window.ingestRouting(ticks.back().routing);
        const qint64 routed = t.nsecsElapsed();
        window.ingest(batch);
        // The worst case for the shard map: all of it in view is repainted.
        shardMapView->viewport()->update();
        const qint64 ingested = t.nsecsElapsed();
        // Do now, inside the measurement, the layout and paint work the updates
        // posted, as the event loop would right after this handler.
        QCoreApplication::sendPostedEvents();
        const qint64 painted = t.nsecsElapsed();
        refreshMs.push_back(double(painted) / 1e6);
        routingMs.push_back(double(routed) / 1e6);
        eventsMs.push_back(double(ingested - routed) / 1e6);
        paintMs.push_back(double(painted - ingested) / 1e6);
        eventsPerRefresh.push_back(double(batch.size()));
    });
    progress.next("the " + QString::number(hz).toStdString() + " Hz feed");
    tickFor(seconds);
    probe.start();
    drain.start();
    runFor(seconds);
    drain.stop();
    const auto feedLate = probe.stop();
    ticker.stop();
    stop = true;
    engineThread.join();

    // The shard map alone: full repaints of what is in view, painted at once.
    progress.next("the shard map's full repaints");
    std::vector<double> shardMapMs;
    for (int i = 0; i < 200; ++i) {
        QElapsedTimer t;
        t.start();
        shardMapView->viewport()->repaint();
        shardMapMs.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    if (parser.isSet(pngOpt)) {
        auto *dock = window.findChild<QDockWidget *>("shardMapDock");
        dock->setFloating(true);
        dock->resize(960, 720);
        dock->show();
        runFor(0.5);
        if (!dock->grab().save(parser.value(pngOpt))) {
            progress.line("synaptic-bench-ui-refresh: error: cannot write " + parser.value(pngOpt).toStdString());
            return 1;
        }
    }

    // The real engine training the base config in this process, its window open.
    std::vector<double> trainLate;
    quint64 trainedSamples = 0;
    if (trainSeconds > 0) {
        ui::ControlPlaneWindow trainWindow(base, QStringLiteral("ui_refresh bench (training)"));
        trainWindow.show();
        QObject::connect(&trainWindow.session(), &ui::ClusterSession::progress,
                         [&](double, quint64 samples) { trainedSamples = samples; });
        progress.next("the engine training " + std::to_string(base.edgeCount()) + " edges");
        trainWindow.start();
        while (trainWindow.session().state() != ui::ClusterSession::State::Running &&
               trainWindow.session().state() != ui::ClusterSession::State::Failed) {
            progress.update(0, "loading the data");
            runFor(0.1); // data loading is not training
        }
        tickFor(trainSeconds);
        probe.start();
        runFor(trainSeconds);
        trainLate = probe.stop();
        ticker.stop();
        trainWindow.session().stop();
        while (trainWindow.session().state() == ui::ClusterSession::State::Running)
            runFor(0.1);
    }

    progress.endRun();
    progress.finish();
    const double p50 = percentile(refreshMs, 50), p95 = percentile(refreshMs, 95), p99 = percentile(refreshMs, 99);
    std::printf("synaptic-bench-ui-refresh: %d edges in %d regions, %zu shards (%lld parameters), %.0f Hz feed\n",
                regions * perRegion, regions, plan.shards.size(), static_cast<long long>(parameters), hz);
    std::printf("  history first: %.0f virtual h, %zu events ingested in %.1f s\n", prefillHours, prefillEvents,
                prefillSeconds);
    std::printf("  refreshes: %zu, events per refresh p50 %.0f max %.0f\n", refreshMs.size(),
                percentile(eventsPerRefresh, 50), percentile(eventsPerRefresh, 100));
    std::printf("  GUI time per refresh: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms\n", p50, p95, p99,
                percentile(refreshMs, 100));
    std::printf("  of which (p50/p99): routing table %.2f/%.2f ms, events %.2f/%.2f ms, repaint %.2f/%.2f ms\n",
                percentile(routingMs, 50), percentile(routingMs, 99), percentile(eventsMs, 50), percentile(eventsMs, 99),
                percentile(paintMs, 50), percentile(paintMs, 99));
    std::printf("  shard map (%s, %d px tall): full repaint p50 %.2f ms, p99 %.2f ms\n", qPrintable(shardView),
                shardMapView->viewport()->height(), percentile(shardMapMs, 50), percentile(shardMapMs, 99));
    std::printf("  p99 against the %.0f ms budget: %.2f× (%s)\n", kBudgetMs, p99 / kBudgetMs,
                p99 <= kBudgetMs ? "within" : "OVER");
    std::printf("  event-loop latency p50/p99: idle %.2f/%.2f ms (baseline), 10 Hz feed %.2f/%.2f ms (%.2f× idle p99)\n",
                percentile(idleLate, 50), percentile(idleLate, 99), percentile(feedLate, 50), percentile(feedLate, 99),
                percentile(feedLate, 99) / std::max(1e-3, percentile(idleLate, 99)));
    if (trainSeconds > 0)
        std::printf("  while the engine trains %d edges: event-loop latency p50 %.2f ms, p99 %.2f ms (%llu samples "
                    "trained)\n",
                    base.edgeCount(), percentile(trainLate, 50), percentile(trainLate, 99),
                    static_cast<unsigned long long>(trainedSamples));
    std::printf("  reproduce: synaptic-bench-ui-refresh --regions %d --edges-per-region %d --min-shards %d --seconds %g "
                "--hz %g --prefill-hours %g --train-seconds %g --shard-view %s\n",
                regions, perRegion, minShards, seconds, hz, prefillHours, trainSeconds, qPrintable(shardView));

    if (parser.isSet(jsonOpt)) {
        QJsonObject o{{"edges", regions * perRegion},
                      {"regions", regions},
                      {"shards", qint64(plan.shards.size())},
                      {"parameters", qint64(parameters)},
                      {"feed_hz", hz},
                      {"prefill_virtual_hours", prefillHours},
                      {"refreshes", qint64(refreshMs.size())},
                      {"events_per_refresh_p50", percentile(eventsPerRefresh, 50)},
                      {"p50_ms", p50},
                      {"p95_ms", p95},
                      {"p99_ms", p99},
                      {"max_ms", percentile(refreshMs, 100)},
                      {"routing_p99_ms", percentile(routingMs, 99)},
                      {"events_p99_ms", percentile(eventsMs, 99)},
                      {"repaint_p99_ms", percentile(paintMs, 99)},
                      {"shard_view", shardView},
                      {"shard_map_repaint_p50_ms", percentile(shardMapMs, 50)},
                      {"shard_map_repaint_p99_ms", percentile(shardMapMs, 99)},
                      {"budget_ms", kBudgetMs},
                      {"p99_over_budget", p99 / kBudgetMs},
                      {"event_loop_idle", latencyJson(idleLate)},
                      {"event_loop_feed", latencyJson(feedLate)},
                      {"event_loop_training", latencyJson(trainLate)},
                      {"training_edges", base.edgeCount()},
                      {"training_samples", qint64(trainedSamples)}};
        QSaveFile f(parser.value(jsonOpt));
        if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0 || !f.commit()) {
            std::fprintf(stderr, "synaptic-bench-ui-refresh: error: cannot write %s\n", qPrintable(parser.value(jsonOpt)));
            return 1;
        }
    }
    return p99 <= kBudgetMs ? 0 : 3;
}
