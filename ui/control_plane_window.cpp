#include "control_plane_window.h"

#include "charts/cluster_chart.h"
#include "models/routing_table_model.h"
#include "models/shard_map_model.h"
#include "panels/control_panel.h"
#include "theme.h"

#include "synaptic_version.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>
#include <QSaveFile>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QStringListModel>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>

namespace synaptic::ui {

namespace {
constexpr int kMaxLogLines = 5000;

QWidget *withFilter(QWidget *view, QSortFilterProxyModel *proxy, const QString &placeholder) {
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    auto *filter = new QLineEdit;
    filter->setPlaceholderText(placeholder);
    filter->setClearButtonEnabled(true);
    QObject::connect(filter, &QLineEdit::textChanged, proxy, [proxy](const QString &text) {
        proxy->setFilterFixedString(text);
    });
    layout->addWidget(filter);
    layout->addWidget(view);
    return box;
}
} // namespace

ControlPlaneWindow::ControlPlaneWindow(const engine::ClusterConfig &config, const QString &configName, QWidget *parent)
    : QMainWindow(parent), m_config(config), m_configName(configName), m_session(new ClusterSession(this)),
      m_chart(new ClusterChart), m_shardMap(new ShardMapModel(this)), m_routing(new RoutingTableModel(this)),
      m_routingProxy(new QSortFilterProxyModel(this)), m_log(new QStringListModel(this)),
      m_logProxy(new QSortFilterProxyModel(this)), m_progress(new QLabel) {
    setObjectName("controlPlane");
    setWindowTitle(tr("Synaptic — %1 (%2)").arg(configName, QString::fromStdString(config.strategy)));
    QVector<int> regionOfEdge;
    for (std::size_t r = 0; r < config.regions.size(); ++r) {
        m_regionNames << QString::fromStdString(config.regions[r].name);
        for (const auto &e : config.regions[r].edges) {
            m_edgeNames << QString::fromStdString(e.name);
            regionOfEdge << int(r);
        }
    }
    m_shardMap->setTopology(m_edgeNames, regionOfEdge, m_regionNames);
    m_routing->setNames(m_edgeNames, m_regionNames);
    m_routingProxy->setSourceModel(m_routing);
    m_routingProxy->setSortRole(RoutingTableModel::SortRole);
    m_routingProxy->setFilterKeyColumn(-1);
    m_routingProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_logProxy->setSourceModel(m_log);
    m_logProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_session->setConfig(config);

    setCentralWidget(m_chart);
    buildDocks();
    buildMenus();
    statusBar()->addPermanentWidget(m_progress);
    m_progress->setText(tr("idle"));

    connect(m_session, &ClusterSession::eventsBatch, this, &ControlPlaneWindow::onEvents);
    connect(m_session, &ClusterSession::routingChanged, m_routing, &RoutingTableModel::setSnapshot);
    connect(m_session, &ClusterSession::routingChanged, m_shardMap, &ShardMapModel::setSnapshot);
    connect(m_session, &ClusterSession::stateChanged, this, &ControlPlaneWindow::onState);
    connect(m_session, &ClusterSession::progress, this, [this](double t, quint64 samples) {
        m_virtualTime = t;
        m_samples = samples;
        updateProgress();
    });
    connect(m_session, &ClusterSession::finished, this, [this](const QString &s) { statusBar()->showMessage(s); });
    connect(m_session, &ClusterSession::failed, this,
            [this](const QString &s) { statusBar()->showMessage(tr("engine failed: %1").arg(s)); });
    connect(m_shardMap, &ShardMapModel::moveRequested, m_session, &ClusterSession::submit);
    connect(m_shardMap, &ShardMapModel::moveRefused, this,
            [this](const QString &why) { statusBar()->showMessage(tr("move refused: %1").arg(why), 8000); });

    resize(1400, 860);
    m_defaultState = saveState();
    QSettings settings;
    restoreGeometry(settings.value("controlPlane/geometry").toByteArray());
    restoreState(settings.value("controlPlane/state").toByteArray());
}

ControlPlaneWindow::~ControlPlaneWindow() = default;

void ControlPlaneWindow::setBudget(std::uint64_t stepsPerEdge, double virtualSeconds) {
    m_session->setBudget(stepsPerEdge, virtualSeconds);
}

void ControlPlaneWindow::buildDocks() {
    m_shardView = new QTreeView;
    m_shardView->setModel(m_shardMap);
    m_shardView->setHeaderHidden(true);
    m_shardView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_shardView->setDragDropMode(QAbstractItemView::DragDrop);
    m_shardView->setDefaultDropAction(Qt::MoveAction);
    m_shardView->setDropIndicatorShown(true);
    connect(m_shardMap, &QAbstractItemModel::modelReset, m_shardView, &QTreeView::expandAll);
    m_shardView->setToolTip(tr("Drag shards onto another edge of the same region to move their ownership"));
    m_shardView->setMinimumWidth(340);
    auto *shardDock = new QDockWidget(tr("Shard map"), this);
    shardDock->setObjectName("shardMapDock");
    shardDock->setWidget(m_shardView);
    addDockWidget(Qt::LeftDockWidgetArea, shardDock);

    m_routingView = new QTableView;
    m_routingView->setModel(m_routingProxy);
    m_routingView->setSortingEnabled(true);
    m_routingView->sortByColumn(RoutingTableModel::Shard, Qt::AscendingOrder);
    m_routingView->verticalHeader()->hide();
    m_routingView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_routingView->setAlternatingRowColors(true);
    auto *routingDock = new QDockWidget(tr("Routing table"), this);
    routingDock->setObjectName("routingDock");
    routingDock->setWidget(withFilter(m_routingView, m_routingProxy, tr("filter: layer, owner, ...")));
    addDockWidget(Qt::BottomDockWidgetArea, routingDock);

    QStringList nodes = m_edgeNames;
    nodes << tr("center");
    m_controls = new ControlPanel(m_config, nodes);
    connect(m_controls, &ControlPanel::commandRequested, m_session, &ClusterSession::submit);
    auto *controlDock = new QDockWidget(tr("Controls"), this);
    controlDock->setObjectName("controlsDock");
    controlDock->setWidget(m_controls);
    addDockWidget(Qt::RightDockWidgetArea, controlDock);

    m_faults = new FaultPanel(nodes, m_regionNames);
    connect(m_faults, &FaultPanel::commandRequested, m_session, &ClusterSession::submit);
    auto *faultDock = new QDockWidget(tr("Faults"), this);
    faultDock->setObjectName("faultsDock");
    faultDock->setWidget(m_faults);
    addDockWidget(Qt::RightDockWidgetArea, faultDock);

    auto *logView = new QListView;
    logView->setModel(m_logProxy);
    logView->setUniformItemSizes(true);
    // Follow the newest events, as a log viewer does.
    connect(m_logProxy, &QAbstractItemModel::rowsInserted, logView, &QListView::scrollToBottom);
    auto *logDock = new QDockWidget(tr("Event log"), this);
    logDock->setObjectName("eventLogDock");
    logDock->setWidget(withFilter(logView, m_logProxy, tr("filter events")));
    addDockWidget(Qt::RightDockWidgetArea, logDock);
}

void ControlPlaneWindow::buildMenus() {
    auto *run = menuBar()->addMenu(tr("&Run"));
    auto *toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    auto add = [&](const QString &text, const QKeySequence &key, auto slot) {
        auto *a = run->addAction(text, key, this, slot);
        toolbar->addAction(a);
        return a;
    };
    add(tr("&Start"), QKeySequence(Qt::CTRL | Qt::Key_R), [this] { start(); });
    add(tr("&Pause"), QKeySequence(Qt::Key_Space), [this] { m_session->pause(); });
    add(tr("Res&ume"), QKeySequence(Qt::CTRL | Qt::Key_Space), [this] { m_session->resume(); });
    add(tr("Single s&tep"), QKeySequence(Qt::Key_Period), [this] { m_session->singleStep(); });
    add(tr("St&op"), QKeySequence(Qt::CTRL | Qt::Key_Period), [this] { m_session->stop(); });
    auto *speed = new QComboBox;
    speed->addItem(tr("as fast as possible"), 0.0);
    for (double k : {0.5, 1.0, 5.0, 20.0})
        speed->addItem(tr("%1× real time").arg(k), k);
    speed->setToolTip(tr("virtual seconds per wall-clock second"));
    connect(speed, &QComboBox::currentIndexChanged, this,
            [this, speed](int i) { m_session->setSpeed(speed->itemData(i).toDouble()); });
    toolbar->addWidget(speed);

    auto *edit = menuBar()->addMenu(tr("&Edit"));
    auto *undo = m_controls->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    auto *redo = m_controls->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    edit->addAction(undo);
    edit->addAction(redo);

    auto *view = menuBar()->addMenu(tr("&View"));
    for (auto *dock : findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("&Reset layout"), this, &ControlPlaneWindow::resetLayout);
    view->addAction(tr("&Save layout..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save layout"), {}, tr("Layout (*.layout)"));
        if (path.isEmpty())
            return;
        const QString error = saveLayout(path);
        statusBar()->showMessage(error.isEmpty() ? tr("layout saved to %1").arg(path) : error, 6000);
    });
    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_Question), this, [this] {
        QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText());
    });
    help->addAction(tr("&About Synaptic"), this, [this] { QMessageBox::about(this, tr("About Synaptic"), aboutText()); });

    view->addAction(tr("&Dark theme"), this, [this] {
        applyTheme(Theme::Dark);
        m_chart->setChartTheme(QChart::ChartThemeDark);
    });
    view->addAction(tr("&Light theme"), this, [this] {
        applyTheme(Theme::Light);
        m_chart->setChartTheme(QChart::ChartThemeLight);
    });
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

QString ControlPlaneWindow::aboutText() const {
    return tr("Synaptic %1\nQt %2 (built with %3)\nLibTorch %4\ngRPC %5\n%6 build, %7")
        .arg(SYNAPTIC_VERSION, qVersion(), QT_VERSION_STR, SYNAPTIC_TORCH_VERSION, SYNAPTIC_GRPC_VERSION,
             SYNAPTIC_BUILD_TYPE, SYNAPTIC_COMPILER);
}

QString ControlPlaneWindow::shortcutsText() const {
    QStringList lines;
    for (const auto *menu : menuBar()->findChildren<QMenu *>())
        for (const auto *a : menu->actions())
            if (!a->shortcut().isEmpty())
                lines << QStringLiteral("%1\t%2").arg(a->shortcut().toString(QKeySequence::NativeText),
                                                      a->text().remove('&'));
    lines.removeDuplicates();
    return lines.join('\n');
}

void ControlPlaneWindow::start() {
    m_chart->clear();
    m_log->setStringList({});
    m_session->start();
}

void ControlPlaneWindow::closeEvent(QCloseEvent *event) {
    QSettings settings;
    settings.setValue("controlPlane/geometry", saveGeometry());
    settings.setValue("controlPlane/state", saveState());
    m_session->stop();
    event->accept();
}

QString ControlPlaneWindow::edgeName(int edge) const {
    return edge < 0 ? tr("center") : m_edgeNames.value(edge, QString::number(edge));
}

void ControlPlaneWindow::log(double time, const QString &text) {
    const int row = m_log->rowCount();
    if (row >= kMaxLogLines)
        m_log->removeRows(0, kMaxLogLines / 10);
    m_log->insertRows(m_log->rowCount(), 1);
    m_log->setData(m_log->index(m_log->rowCount() - 1), QStringLiteral("%1 s  %2").arg(time, 8, 'f', 3).arg(text));
}

void ControlPlaneWindow::onEvents(const QVector<engine::SimEvent> &batch) {
    for (const auto &e : batch) {
        if (const auto *m = std::get_if<engine::MetricEvent>(&e)) {
            m_chart->addMetric(*m);
            if (m->scope == "global")
                m_globalAccuracy = m->accuracy;
        } else if (const auto *l = std::get_if<engine::LeaseEvent>(&e)) {
            m_shardMap->setEdgeMode(l->edge, QString::fromStdString(l->mode));
            log(l->time, tr("%1 is %2 (lease epoch %3)").arg(edgeName(l->edge), QString::fromStdString(l->mode))
                             .arg(l->epoch));
        } else if (const auto *c = std::get_if<engine::CommandEvent>(&e)) {
            log(c->time, (c->applied ? tr("applied: %1") : tr("refused: %1"))
                             .arg(QString::fromStdString(c->command + (c->detail.empty() ? "" : " — " + c->detail))));
        } else if (const auto *r = std::get_if<engine::RoutingEvent>(&e)) {
            if (r->reason == "move")
                log(r->time, tr("shard %1 now owned by %2 in %3").arg(r->shard).arg(edgeName(r->owner),
                                                                                     m_regionNames.value(r->region)));
        } else if (const auto *k = std::get_if<engine::ConsistencyEvent>(&e)) {
            if (k->mismatches > 0)
                log(k->time, tr("consistency: %1 of %2 copies differ from the global one").arg(k->mismatches)
                                 .arg(k->checked));
        }
    }
    m_chart->flush();
    updateProgress();
}

void ControlPlaneWindow::updateProgress() {
    m_progress->setText(tr("%1 · virtual %2 s · %3 samples · global accuracy %4")
                            .arg(QString::fromStdString(m_config.strategy))
                            .arg(m_virtualTime, 0, 'f', 2)
                            .arg(QLocale().toString(m_samples))
                            .arg(m_globalAccuracy, 0, 'f', 4));
}

void ControlPlaneWindow::onState(ClusterSession::State state) {
    static const char *names[] = {"idle", "loading data", "running", "paused", "finished", "failed"};
    statusBar()->showMessage(tr("cluster %1").arg(tr(names[int(state)])), 4000);
}

} // namespace synaptic::ui
