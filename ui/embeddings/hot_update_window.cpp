#include "hot_update_window.h"

#include "core/data/fortune_corpus.h"
#include "core/engine/embeddings/scenario_languages.h"
#include "ui/charts/time_series_chart.h"
#include "ui/models/routing_table_model.h"
#include "ui/models/shard_map_model.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>

#include <cmath>
#include <filesystem>

namespace synaptic::ui {

HotUpdateWindow::HotUpdateWindow(const engine::ClusterConfig &config, QWidget *parent)
    : QMainWindow(parent), m_config(config) {
    setWindowTitle(tr("Synaptic — embedding hot updates (language ID)"));
    buildToolbar();
    setCentralWidget(buildViews());
    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    m_status->setText(tr("Start runs the language-ID scenario on this cluster: one region starts seeing '%1' at "
                         "%2 s of virtual time.")
                          .arg(QString::fromStdString(m_options.newLanguage))
                          .arg(m_options.newLanguageAt));
    connect(&m_session, &HotUpdateSession::framesReady, this, &HotUpdateWindow::onFrames);
    connect(&m_session, &HotUpdateSession::finished, this, &HotUpdateWindow::onFinished);
    connect(&m_session, &HotUpdateSession::failed, this,
            [this](const QString &why) { m_status->setText(tr("The scenario failed: %1").arg(why)); });
    connect(&m_session, &HotUpdateSession::stateChanged, this, &HotUpdateWindow::onStateChanged);
    setOptions(m_options);
    resize(1400, 900);
}

void HotUpdateWindow::buildToolbar() {
    auto *bar = addToolBar(tr("Scenario"));
    bar->setObjectName(QStringLiteral("scenarioToolbar"));
    m_startAction = bar->addAction(tr("Start"), this, &HotUpdateWindow::start);
    m_stopAction = bar->addAction(tr("Stop"), this, &HotUpdateWindow::stop);
    m_stopAction->setEnabled(false);
    bar->addSeparator();
    m_hotUpdates = new QCheckBox(tr("Hot updates (owner to owner)"), this);
    m_hotUpdates->setToolTip(tr("Off: rows cross regions only with the periodic center sync, the baseline the "
                                "hot path is measured against. Applies at the next start."));
    bar->addWidget(m_hotUpdates);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Lag bound: "), this));
    m_lagBound = new QSpinBox(this);
    m_lagBound->setRange(0, 256);
    m_lagBound->setSuffix(tr(" publishes"));
    m_lagBound->setToolTip(tr("How many publishes of a shard an edge may miss before it asks the shard's owner "
                              "for a catch-up: an edge whose next batch uses such a shard defers that training "
                              "step until the answer comes. Live: the running scenario takes the new bound at "
                              "its next event and logs when."));
    connect(m_lagBound, &QSpinBox::valueChanged, this, [this](int bound) { m_session.setLagBound(bound); });
    bar->addWidget(m_lagBound);
}

QWidget *HotUpdateWindow::buildViews() {
    m_routing = new RoutingTableModel(this);
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_routing);
    proxy->setSortRole(RoutingTableModel::SortRole);
    auto *table = new QTableView;
    table->setObjectName(QStringLiteral("embeddingRoutingTable"));
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(RoutingTableModel::Shard, Qt::AscendingOrder);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // What this view is about next to the row range; drift is not measured here.
    table->horizontalHeader()->moveSection(RoutingTableModel::RowsHeld, RoutingTableModel::Rows + 1);
    table->setColumnHidden(RoutingTableModel::Drift, true);

    m_shardMap = new ShardMapModel(this);
    auto *tree = new QTreeView;
    tree->setObjectName(QStringLiteral("embeddingShardMap"));
    tree->setModel(m_shardMap);
    tree->setHeaderHidden(true);
    // This scenario's owners are fixed by the planner: no drag to move them.
    tree->setDragEnabled(false);

    // Short titles: each chart is a third of the window wide.
    m_propagation = new TimeSeriesChart(tr("New rows to every edge (last 1 s)"));
    m_propagation->setXAxisKind(XAxisKind::VirtualSeconds);
    m_secondsAxis = m_propagation->addValueAxis(tr("time from first update (s)"), Qt::AlignLeft, 0.0);
    m_spread = new TimeSeriesChart(tr("Newest rows held; new language learnt"));
    m_spread->setXAxisKind(XAxisKind::VirtualSeconds);
    m_shareAxis = m_spread->addValueAxis(tr("share (fraction)"), Qt::AlignLeft, 0.0, 1.0);

    // The table across the top (it is wide); the map and the two charts side by side under it.
    auto *bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(tree);
    bottom->addWidget(m_propagation);
    bottom->addWidget(m_spread);
    bottom->setSizes({600, 400, 400}); // the map's edge lines are long
    auto *all = new QSplitter(Qt::Vertical);
    all->addWidget(table);
    all->addWidget(bottom);
    all->setSizes({420, 480});
    return all;
}

void HotUpdateWindow::setOptions(const engine::HotUpdateOptions &options) {
    m_options = options;
    const QSignalBlocker block(m_lagBound);
    m_lagBound->setValue(options.lagBound);
    m_session.setLagBound(options.lagBound);
    m_hotUpdates->setChecked(options.hotUpdates);
}

bool HotUpdateWindow::fortunesReady() {
    if (m_narrowed) { // asked last time: ask again, the packages may be installed by now
        m_options.languages.clear();
        m_narrowed = false;
    }
    const std::string dir = data::resolveFortuneDir(m_fortuneDir.toStdString());
    std::error_code ec;
    if (!m_options.languages.empty() || !std::filesystem::is_directory(dir, ec))
        return true; // already narrowed, or no folder at all: the loader names it
    const auto have = data::fortuneAvailability(dir);
    if (have.missing.empty())
        return true;
    QStringList names;
    QStringList packages;
    for (const auto &l : have.missing) {
        names << QString::fromStdString(l.name);
        packages << QString::fromStdString(l.package);
    }
    const QString missing = tr("No fortune files for %1 in %2. Install them with: sudo apt install %3")
                                .arg(names.join(", "), QString::fromStdString(dir), packages.join(' '));
    if (!engine::hotUpdateScenarioCanRun(have, m_options.newLanguage)) {
        m_status->setText(missing + tr(" (the scenario needs its new language, %1, and one other)")
                                        .arg(QString::fromStdString(m_options.newLanguage)));
        return false;
    }
    const QString question =
        missing + tr("\n\nContinue with the %1 languages installed?").arg(have.present.size());
    const bool goOn = m_askMissing ? m_askMissing(question)
                                   : QMessageBox::question(this, tr("Fortune files missing"), question) ==
                                         QMessageBox::Yes;
    if (!goOn) {
        m_status->setText(missing);
        return false;
    }
    m_options.languages = have.present;
    m_narrowed = true;
    return true;
}

void HotUpdateWindow::start() {
    if (m_session.state() == HotUpdateSession::State::Running)
        return;
    if (!fortunesReady())
        return;
    m_options.hotUpdates = m_hotUpdates->isChecked();
    m_options.lagBound = m_lagBound->value();
    m_session.setLagBound(m_options.lagBound);
    m_propagation->clear();
    m_spread->clear();
    m_lastEvalPlotted = -1;
    if (!m_topologySet) {
        QStringList edges, regions;
        QVector<int> regionOfEdge;
        for (std::size_t r = 0; r < m_config.regions.size(); ++r) {
            regions << QString::fromStdString(m_config.regions[r].name);
            for (const auto &e : m_config.regions[r].edges) {
                edges << QString::fromStdString(e.name);
                regionOfEdge << int(r);
            }
        }
        m_routing->setNames(edges, regions);
        m_shardMap->setTopology(edges, regionOfEdge, regions);
        m_shardMap->setShareBounds(m_config.planner.minShare, m_config.planner.maxShare, ShardMapModel::OnBound::Refuse);
        for (int e = 0; e < edges.size(); ++e)
            m_shardMap->setEdgeMode(e, QStringLiteral("training"));
        m_topologySet = true;
    }
    m_status->setText(tr("Reading the fortune files and warming the model up..."));
    m_session.start(m_config, m_options, m_fortuneDir);
}

void HotUpdateWindow::stop() { m_session.stop(); }

void HotUpdateWindow::onStateChanged(HotUpdateSession::State state) {
    const bool running = state == HotUpdateSession::State::Running;
    m_startAction->setEnabled(!running);
    m_stopAction->setEnabled(running);
    m_hotUpdates->setEnabled(!running);
}

void HotUpdateWindow::onFrames(const QVector<engine::HotUpdateFrame> &frames) {
    const QString origin = QString::fromStdString(
        m_options.newLanguageRegion < int(m_config.regions.size()) ? m_config.regions[std::size_t(m_options.newLanguageRegion)].name : "");
    for (const auto &f : frames) {
        SamplePoint p;
        p.steps = double(f.steps);
        p.virtualSeconds = f.virtualTime;
        if (f.rowsDone > 0) {
            p.value = f.presenceP50;
            m_propagation->addPoint(tr("p50"), m_secondsAxis, p);
            p.value = f.presenceP99;
            m_propagation->addPoint(tr("p99"), m_secondsAxis, p);
        }
        if (!std::isnan(f.recentRowsHeldShare)) {
            p.value = f.recentRowsHeldShare;
            m_spread->addPoint(tr("rows held"), m_shareAxis, p);
        }
        // Accuracy at the evaluation's own time, once per evaluation.
        if (f.evalTime <= m_lastEvalPlotted)
            continue;
        m_lastEvalPlotted = f.evalTime;
        p.virtualSeconds = f.evalTime;
        for (std::size_t q = 0; q < f.newLanguageAccuracy.size() && q < m_config.regions.size(); ++q) {
            p.value = f.newLanguageAccuracy[q];
            const QString region = QString::fromStdString(m_config.regions[q].name);
            // Short names: the legend sits under a narrow chart.
            m_spread->addPoint(tr("%1 %2%3")
                                   .arg(QString::fromStdString(m_options.newLanguage), region,
                                        region == origin ? tr(" (origin)") : QString()),
                               m_shareAxis, p, /*dashed=*/true);
        }
    }
    m_propagation->flush();
    m_spread->flush();
    showFrame(frames.back()); // tables show the newest state only
}

void HotUpdateWindow::showFrame(const engine::HotUpdateFrame &f) {
    m_routing->setSnapshot(f.routing);
    m_routing->setHeldShares(f.heldShare);
    m_shardMap->setSnapshot(f.routing);
    m_shardMap->setHeldShares(f.heldShare);
    m_status->setText(tr("t = %1 of %2 s · %3 steps · lag bound %4 · catch-ups %5 · steps held back %6 · audit: %7 "
                         "rows used past the bound%8")
                          .arg(f.virtualTime, 0, 'f', 2)
                          .arg(f.duration, 0, 'f', 1)
                          .arg(f.steps)
                          .arg(f.lagBound)
                          .arg(f.catchUps)
                          .arg(f.stepsDeferred)
                          .arg(f.lagViolations)
                          .arg(m_session.framesDropped() > 0
                                   ? tr(" · %1 frames dropped (the view fell behind)").arg(m_session.framesDropped())
                                   : QString()));
}

void HotUpdateWindow::onFinished(const engine::HotUpdateResult &r) {
    if (r.rowsTracked == 0) { // stopped before any new row: nothing was measured
        m_status->setText(tr("%1 at %2 s, before any new row was measured.")
                              .arg(r.stopped ? tr("Stopped") : tr("Finished"))
                              .arg(r.virtualSeconds, 0, 'f', 2));
        return;
    }
    m_status->setText(tr("%1 at %2 s: new rows at every edge p50 %3 s, p99 %4 s (%5 of %6 rows never reached "
                         "every edge); sparse messages %7× fewer bytes than whole shards; %8 rows used past the "
                         "lag bound.")
                          .arg(r.stopped ? tr("Stopped") : tr("Finished"))
                          .arg(r.virtualSeconds, 0, 'f', 2)
                          .arg(r.presenceP50, 0, 'f', 2)
                          .arg(r.presenceP99, 0, 'f', 2)
                          .arg(r.rowsUnresolved)
                          .arg(r.rowsTracked)
                          .arg(r.sparseEmbeddingBytes > 0
                                   ? double(r.wholeShardEmbeddingBytes) / double(r.sparseEmbeddingBytes)
                                   : 0.0,
                               0, 'f', 1)
                          .arg(r.lagViolations));
}

QString HotUpdateWindow::statusText() const { return m_status->text(); }

} // namespace synaptic::ui
