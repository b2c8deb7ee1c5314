#include "control_plane_window.h"

#include "charts/chart_panel.h"
#include "charts/time_series_chart.h"
#include "embeddings/hot_update_window.h"
#include "models/routing_table_model.h"
#include "models/shard_map_model.h"
#include "panels/codec_panel.h"
#include "panels/control_panel.h"
#include "panels/serving_panel.h"
#include "telemetry/chart_feeder.h"
#include "topology/topology_geography.h"
#include "topology/topology_view.h"
#include "views/shard_map_panel.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QSaveFile>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QStringListModel>
#include <QTableView>
#include <QProgressBar>
#include <QTreeView>
#include <QVBoxLayout>

namespace synaptic::ui {

namespace {

// Of the 16 ms a refresh may take, what the charts may spend rebuilding lines
// (bench/ui_refresh measures the whole refresh against 16 ms).
constexpr double kChartRedrawBudgetMs = 2;

QWidget *withFilter(QWidget *view, QSortFilterProxyModel *proxy, const QString &placeholder, QLineEdit **filterOut) {
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    auto *filter = new QLineEdit;
    filter->setPlaceholderText(placeholder);
    filter->setClearButtonEnabled(true);
    QObject::connect(filter, &QLineEdit::textChanged, proxy,
                     [proxy](const QString &text) { proxy->setFilterFixedString(text); });
    layout->addWidget(filter);
    layout->addWidget(view);
    *filterOut = filter;
    return box;
}

QDockWidget *dock(QMainWindow *window, const QString &title, const QString &objectName, QWidget *content) {
    auto *d = new QDockWidget(title, window);
    d->setObjectName(objectName); // saveState() finds docks by name
    d->setWidget(content);
    return d;
}

} // namespace

namespace {
ClusterSession *embeddedEngine(const engine::ClusterConfig &config) {
    auto *session = new ClusterSession;
    session->setConfig(config);
    return session;
}
} // namespace

ControlPlaneWindow::ControlPlaneWindow(const engine::ClusterConfig &config, const QString &configName, QWidget *parent)
    : ControlPlaneWindow(config, configName, embeddedEngine(config), parent) {}

ControlPlaneWindow::ControlPlaneWindow(const engine::ClusterConfig &config, const QString &configName,
                                       ClusterSource *source, QWidget *parent)
    : QMainWindow(parent), m_config(config), m_configName(configName), m_session(source),
      m_embedded(qobject_cast<ClusterSession *>(source)), m_shardMap(new ShardMapModel(this)), m_routing(new RoutingTableModel(this)),
      m_routingProxy(new QSortFilterProxyModel(this)), m_log(new QStringListModel(this)),
      m_logProxy(new QSortFilterProxyModel(this)), m_topology(new TopologyView), m_progress(new QLabel),
      m_runProgress(new QProgressBar) {
    m_session->setParent(this);
    setObjectName("controlPlane");
    setWindowTitle(tr("Synaptic — %1 (%2)").arg(configName, QString::fromStdString(config.strategy)));
    for (std::size_t r = 0; r < config.regions.size(); ++r) {
        m_regionNames << QString::fromStdString(config.regions[r].name);
        for (const auto &e : config.regions[r].edges) {
            m_edgeNames << QString::fromStdString(e.name);
            m_regionOfEdge << int(r);
        }
    }
    m_shardMap->setTopology(m_edgeNames, m_regionOfEdge, m_regionNames);
    m_topology->setTopology(m_regionNames, m_edgeNames, m_regionOfEdge);
    showGeography(*m_topology, m_config);
    m_routing->setNames(m_edgeNames, m_regionNames);
    m_routingProxy->setSourceModel(m_routing);
    m_routingProxy->setSortRole(RoutingTableModel::SortRole);
    m_routingProxy->setFilterKeyColumn(-1);
    m_routingProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_logProxy->setSourceModel(m_log);
    m_logProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    setCentralWidget(m_topology);
    buildCharts();
    buildDocks();
    buildMenus();
    buildPlannerBounds();
    buildHighlights();
    statusBar()->addPermanentWidget(m_progress);
    m_progress->setText(tr("idle"));
    m_runProgress->setRange(0, 1000);
    m_runProgress->setMaximumWidth(220);
    m_runProgress->setVisible(false);
    statusBar()->addPermanentWidget(m_runProgress);

    connectSource();
    applySourceLimits();
    connect(m_shardMap, &ShardMapModel::moveRefused, this,
            [this](const QString &why) { statusBar()->showMessage(tr("move refused: %1").arg(why), 8000); });
    connect(m_topology, &TopologyView::selectionChanged, this, &ControlPlaneWindow::focusOn);
    m_logTimer.setSingleShot(true);
    m_logTimer.setInterval(kLogFlushMs);
    connect(&m_logTimer, &QTimer::timeout, this, &ControlPlaneWindow::flushLog);

    resize(1500, 920);
    m_defaultState = saveState();
    QSettings settings;
    restoreGeometry(settings.value("controlPlane/geometry").toByteArray());
    restoreState(settings.value("controlPlane/state").toByteArray());
}

ControlPlaneWindow::~ControlPlaneWindow() = default;

void ControlPlaneWindow::connectSource() {
    connect(m_session, &ClusterSource::eventsBatch, this, &ControlPlaneWindow::ingest);
    connect(m_session, &ClusterSource::routingChanged, this, &ControlPlaneWindow::ingestRouting);
    connect(m_session, &ClusterSource::stateChanged, this, &ControlPlaneWindow::onState);
    connect(m_session, &ClusterSource::progress, this, [this](double t, quint64 samples) {
        m_virtualTime = t;
        m_samples = samples;
        updateProgress();
    });
    connect(m_session, &ClusterSource::finished, this, [this](const QString &s) {
        m_feeder->flush(); // the run is over: every instant is complete
        flushLog();
        statusBar()->showMessage(s);
    });
    connect(m_session, &ClusterSource::failed, this, [this](const QString &s) {
        statusBar()->showMessage(m_embedded ? tr("engine failed: %1").arg(s) : s);
    });
    connect(m_session, &ClusterSource::statusMessage, this,
            [this](const QString &text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); });
    connect(m_session, &ClusterSource::viewsReset, this, &ControlPlaneWindow::resetViews);
    connect(m_shardMap, &ShardMapModel::moveRequested, m_session, &ClusterSource::submit);
}

void ControlPlaneWindow::setBudget(std::uint64_t stepsPerEdge, double virtualSeconds) {
    if (m_embedded)
        m_embedded->setBudget(stepsPerEdge, virtualSeconds);
}

void ControlPlaneWindow::buildCharts() {
    m_trainingChart = new TimeSeriesChart(tr("Accuracy and loss"));
    m_driftChart = new TimeSeriesChart(tr("Version lag and parameter drift (at center syncs)"));
    m_bandwidthChart = new TimeSeriesChart(tr("Bandwidth (select an edge for its links)"));
    m_inferenceChart = new TimeSeriesChart(tr("Early-exit serving: edge share, accuracy, latency"));
    m_feeder = std::make_unique<ChartFeeder>(m_trainingChart, m_driftChart, m_bandwidthChart, m_inferenceChart);
    m_feeder->setTopology(m_edgeNames, m_regionOfEdge, m_regionNames, m_config.batchSize);
    m_feeder->setRedrawBudgetMs(kChartRedrawBudgetMs);
    for (auto *chart : {m_trainingChart, m_driftChart, m_bandwidthChart, m_inferenceChart})
        chart->setLazyWhenHidden(true); // a chart behind a dock tab costs nothing until shown
    for (auto *chart : {m_trainingChart, m_driftChart, m_bandwidthChart})
        m_chartPanels << new ChartPanel(chart);
    m_inferencePanel = new ChartPanel(m_inferenceChart);
    if (!(m_config.serving.requestRate > 0))
        m_inferencePanel->setPlaceholder(
            tr("This cluster serves no requests: set \"serving\": {\"request_rate\": R} in its config\n"
               "(requests per virtual second at each edge) to see early-exit serving here."));
    m_chartPanels << m_inferencePanel;
    for (auto *panel : m_chartPanels)
        connect(panel, &ChartPanel::message, this, [this](const QString &text) { statusBar()->showMessage(text, 8000); });
}

void ControlPlaneWindow::buildDocks() {
    // Issue 18 §2: chips sized by parameters at a glance, the tree one tab away.
    m_shardPanel = new ShardMapPanel(m_shardMap);
    auto *shardDock = dock(this, tr("Shard map"), "shardMapDock", m_shardPanel);
    addDockWidget(Qt::LeftDockWidgetArea, shardDock);

    QStringList nodes = m_edgeNames;
    nodes << tr("center");
    m_controls = new ControlPanel(m_config, nodes);
    connect(m_controls, &ControlPanel::commandRequested, m_session, &ClusterSource::submit);
    auto *controlDock = dock(this, tr("Controls"), "controlsDock", m_controls);
    addDockWidget(Qt::LeftDockWidgetArea, controlDock);
    m_faults = new FaultPanel(nodes, m_regionNames);
    connect(m_faults, &FaultPanel::commandRequested, m_session, &ClusterSource::submit);
    auto *faultDock = dock(this, tr("Faults"), "faultsDock", m_faults);
    addDockWidget(Qt::LeftDockWidgetArea, faultDock);
    tabifyDockWidget(controlDock, faultDock);
    auto *codecs = new CodecPanel(m_config.codecs);
    connect(codecs, &CodecPanel::commandRequested, m_session, &ClusterSource::submit);
    auto *codecDock = dock(this, tr("Codecs"), "codecsDock", codecs);
    addDockWidget(Qt::LeftDockWidgetArea, codecDock);
    tabifyDockWidget(controlDock, codecDock);
    controlDock->raise();

    const QStringList chartTitles{tr("Training"), tr("Drift and lag"), tr("Bandwidth"), tr("Inference")};
    const QStringList chartNames{"trainingChartDock", "driftChartDock", "bandwidthChartDock", "inferenceChartDock"};
    QDockWidget *firstChart = nullptr;
    for (int i = 0; i < m_chartPanels.size(); ++i) {
        auto *d = dock(this, chartTitles[i], chartNames[i], m_chartPanels[i]);
        addDockWidget(Qt::RightDockWidgetArea, d);
        // A chart skipped its redraws while its tab was behind another: catch up when raised.
        auto *chart = m_chartPanels[i]->chart();
        connect(d, &QDockWidget::visibilityChanged, chart, [chart](bool visible) {
            if (visible)
                QMetaObject::invokeMethod(chart, [chart] { chart->flush(); }, Qt::QueuedConnection);
        });
        if (firstChart)
            tabifyDockWidget(firstChart, d);
        else
            firstChart = d;
    }
    // Serving sits with the charts: its sweep needs the room.
    m_serving = new ServingPanel(m_edgeNames, m_config.knobs.confidenceThreshold, m_config.serving.releaseEverySyncs);
    connect(m_serving, &ServingPanel::commandRequested, m_session, &ClusterSource::submit);
    auto *servingDock = dock(this, tr("Serving"), "servingDock", m_serving);
    addDockWidget(Qt::RightDockWidgetArea, servingDock);
    tabifyDockWidget(firstChart, servingDock);
    firstChart->raise();

    m_routingView = new QTableView;
    m_routingView->setModel(m_routingProxy);
    m_routingView->setSortingEnabled(true);
    m_routingView->sortByColumn(RoutingTableModel::Shard, Qt::AscendingOrder);
    m_routingView->verticalHeader()->hide();
    // Fashion-MNIST's shards are dense: every edge holds them whole.
    m_routingView->setColumnHidden(RoutingTableModel::RowsHeld, true);
    // Interactive, not ResizeToContents: measuring thousands of rows on every
    // update would cost more than the whole refresh budget.
    m_routingView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_routingView->horizontalHeader()->setStretchLastSection(true);
    m_routingView->setAlternatingRowColors(true);
    m_routingView->setWordWrap(false);
    m_routingView->horizontalHeader()->setResizeContentsPrecision(64); // size columns from a sample of rows
    m_routingView->verticalHeader()->setDefaultSectionSize(m_routingView->fontMetrics().height() + 6);
    auto *routingDock = dock(this, tr("Routing table"), "routingDock",
                             withFilter(m_routingView, m_routingProxy, tr("filter: layer, owner, ..."), &m_routingFilter));
    addDockWidget(Qt::BottomDockWidgetArea, routingDock);

    auto *logView = new QListView;
    logView->setModel(m_logProxy);
    logView->setUniformItemSizes(true);
    // Follow the newest events, as a log viewer does.
    connect(m_logProxy, &QAbstractItemModel::rowsInserted, logView, &QListView::scrollToBottom);
    auto *logDock = dock(this, tr("Event log"), "eventLogDock",
                         withFilter(logView, m_logProxy, tr("filter events"), &m_logFilter));
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    splitDockWidget(routingDock, logDock, Qt::Horizontal);
    resizeDocks({routingDock, logDock}, {900, 500}, Qt::Horizontal);
    resizeDocks({firstChart}, {620}, Qt::Horizontal);
    resizeDocks({shardDock, controlDock}, {440, 330}, Qt::Vertical);
    resizeDocks({routingDock}, {260}, Qt::Vertical);
}

void ControlPlaneWindow::resetLayout() { restoreState(m_defaultState); }

QString ControlPlaneWindow::loadLayout(const QString &path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return tr("%1: cannot open layout file").arg(path);
    if (!restoreState(f.readAll()))
        return tr("%1: not a Synaptic layout (saved with View → Save layout)").arg(path);
    return {};
}

QString ControlPlaneWindow::saveLayout(const QString &path) const {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(saveState()) < 0 || !f.commit())
        return tr("%1: cannot write layout file").arg(path);
    return {};
}

HotUpdateWindow *ControlPlaneWindow::hotUpdateWindow(const engine::ClusterConfig &config) {
    auto *w = new HotUpdateWindow(config);
    auto options = w->options();
    options.seed = config.seed; // as synaptic --task langid seeds it
    w->setOptions(options);
    w->setFortuneDir(QString::fromStdString(engine::configFortuneDir(config)));
    return w;
}

QMainWindow *ControlPlaneWindow::openConfig(const QString &path, QString *error) {
    try {
        const auto config = engine::loadClusterConfig(path.toStdString());
        if (config.task == "langid")
            return hotUpdateWindow(config);
        return new ControlPlaneWindow(config, QFileInfo(path).fileName());
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return nullptr;
    }
}

void ControlPlaneWindow::start() {
    m_feeder->clear();
    m_log->setStringList({});
    m_linkInterval = -1;
    m_linkRates.clear();
    m_wall.start();
    m_runningMs = 0;
    m_runningSince.invalidate();
    m_session->start();
}

void ControlPlaneWindow::closeEvent(QCloseEvent *event) {
    QSettings settings;
    settings.setValue("controlPlane/geometry", saveGeometry());
    settings.setValue("controlPlane/state", saveState());
    m_session->stop();
    event->accept();
}

} // namespace synaptic::ui
