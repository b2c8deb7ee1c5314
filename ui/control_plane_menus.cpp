// The control plane's menus, toolbar and dialogs (File, Run, Edit, View, Help).
#include "control_plane_window.h"

#include "core/engine/sim/config_search.h"

#include "charts/time_series_chart.h"
#include "dialogs/getting_started_dialog.h"
#include "dialogs/new_cluster_dialog.h"
#include "embeddings/hot_update_window.h"
#include "panels/control_panel.h"
#include "remote/remote_window.h"
#include "replay/recording_opener.h"
#include "theme.h"
#include "topology/topology_view.h"

#include "synaptic_version.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>

namespace synaptic::ui {

void ControlPlaneWindow::buildMenus() {
    buildFileMenu();
    auto *run = menuBar()->addMenu(tr("&Run"));
    auto *toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    m_runMenu = run;
    m_runToolbar = toolbar;
    auto add = [&](const QString &text, const QKeySequence &key, auto slot) {
        auto *a = run->addAction(text, key, this, slot);
        toolbar->addAction(a);
        return a;
    };
    m_startAction = add(tr("&Start"), QKeySequence(Qt::CTRL | Qt::Key_R), [this] { start(); });
    m_pacingActions << add(tr("&Pause"), QKeySequence(Qt::Key_Space), [this] { m_session->pause(); });
    m_pacingActions << add(tr("Res&ume"), QKeySequence(Qt::CTRL | Qt::Key_Space), [this] { m_session->resume(); });
    m_pacingActions << add(tr("Single s&tep"), QKeySequence(Qt::Key_Period), [this] { m_session->singleStep(); });
    m_stopAction = add(tr("St&op"), QKeySequence(Qt::CTRL | Qt::Key_Period), [this] { m_session->stop(); });
    auto *speed = new QComboBox;
    speed->setObjectName("speedBox");
    m_speedBox = speed;
    speed->addItem(tr("as fast as possible"), 0.0);
    for (double k : {0.5, 1.0, 5.0, 20.0})
        speed->addItem(tr("%1× real time").arg(k), k);
    speed->setToolTip(tr("virtual seconds per wall-clock second"));
    connect(speed, &QComboBox::currentIndexChanged, this,
            [this, speed](int i) { m_session->setSpeed(speed->itemData(i).toDouble()); });
    toolbar->addWidget(speed);
    buildRecordControls(toolbar);

    auto *edit = menuBar()->addMenu(tr("&Edit"));
    auto *undo = m_controls->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    auto *redo = m_controls->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("Clear &selection"), QKeySequence(Qt::Key_Escape), this,
                    [this] { focusOn(TopologySelection{}); });
    buildHelpAndViewMenus();
}

// A live cluster runs in real time: pacing it from here would be a lie, so
// those controls are off and their tooltips say why (issue 13 §5).
void ControlPlaneWindow::applySourceLimits() {
    m_startAction->setToolTip(m_session->startToolTip());
    m_stopAction->setToolTip(m_session->stopToolTip());
    const QString why = m_session->pacingUnavailableReason();
    if (why.isEmpty())
        return;
    for (auto *a : m_pacingActions) {
        a->setEnabled(false);
        a->setToolTip(tr("%1: %2").arg(a->text().remove('&'), why));
    }
    m_speedBox->setEnabled(false);
    m_speedBox->setToolTip(why);
}

void ControlPlaneWindow::buildFileMenu() {
    auto *file = menuBar()->addMenu(tr("&File"));
    // Another cluster opens in its own window, so the running one can stay up for comparison.
    auto launch = [this](ControlPlaneWindow *w) {
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->show();
        w->start();
    };
    file->addAction(tr("&Open config..."), QKeySequence::Open, this, [this, launch] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open cluster config"), configFolder(), tr("Cluster config (*.json)"));
        if (path.isEmpty())
            return;
        QString error;
        auto *w = openConfig(path, &error);
        if (auto *controlPlane = qobject_cast<ControlPlaneWindow *>(w)) {
            launch(controlPlane);
        } else if (auto *hotUpdates = qobject_cast<HotUpdateWindow *>(w)) {
            hotUpdates->setAttribute(Qt::WA_DeleteOnClose);
            hotUpdates->show();
            hotUpdates->start();
        } else {
            QMessageBox::warning(this, tr("Cannot open config"), error);
        }
    });
    file->addAction(tr("&New cluster..."), QKeySequence::New, this, [this, launch] {
        NewClusterDialog dialog(m_config, this);
        if (dialog.exec() != QDialog::Accepted)
            return;
        const auto config = dialog.config();
        launch(new ControlPlaneWindow(config, tr("%1 × %2 edges").arg(config.regions.size())
                                                  .arg(config.regions.front().edges.size())));
    });
    // The same config as separate processes on this machine, in a window of its own.
    file->addAction(tr("&Launch local cluster..."), this, [this] { launchLocalCluster(m_config, this); });
    // The second task (issue 16): the language-ID model's embedding shards
    // and their hot updates, on this window's cluster, in a window of its own.
    file->addAction(tr("&Embedding hot updates (language ID)..."), this, [this] {
        auto *w = hotUpdateWindow(m_config);
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->show();
        w->start();
    });
    file->addAction(tr("Open &recording..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open recording"), recordingsFolder(),
                                                          tr("Synaptic recording (*.synrec);;All files (*)"));
        if (path.isEmpty())
            return;
        // Read off the GUI thread; this window may be gone by the time it is read.
        RecordingOpener::openWithDialog(path, 0, this, [self = QPointer<ControlPlaneWindow>(this)](
                                                            ControlPlaneWindow *w, const QString &error) {
            if (w) {
                w->setAttribute(Qt::WA_DeleteOnClose);
                w->show();
            } else if (!error.isEmpty()) {
                QMessageBox::warning(self, tr("Cannot open recording"), error);
            }
        });
    });
    file->addAction(tr("Record &to..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Record session to"), recordingsFolder(),
                                                          tr("Synaptic recording (*.synrec)"));
        if (path.isEmpty())
            return;
        if (const QString error = startRecording(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Cannot record"), error);
    });
    file->addSeparator();
    file->addAction(tr("&Close window"), QKeySequence::Close, this, &QWidget::close);
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
}

void ControlPlaneWindow::buildHelpAndViewMenus() {
    auto *view = menuBar()->addMenu(tr("&View"));
    for (auto *d : findChildren<QDockWidget *>())
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("&Reset layout"), this, &ControlPlaneWindow::resetLayout);
    view->addAction(tr("&Save layout..."), this, [this] {
        // Layouts live with the user's configs (XDG config folder).
        const QString folder = QString::fromStdString(engine::userConfigDir()) + "/layouts";
        QDir().mkpath(folder);
        const QString path = QFileDialog::getSaveFileName(this, tr("Save layout"), folder, tr("Layout (*.layout)"));
        if (path.isEmpty())
            return;
        const QString error = saveLayout(path);
        statusBar()->showMessage(error.isEmpty() ? tr("layout saved to %1").arg(path) : error, 6000);
    });
    view->addSeparator();
    view->addAction(tr("&Dark theme"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this,
                    [this] { setThemeEverywhere(true); });
    view->addAction(tr("&Light theme"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L), this,
                    [this] { setThemeEverywhere(false); });

    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Getting started"), this, &ControlPlaneWindow::showGettingStarted);
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_Question), this, [this] {
        QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText());
    });
    help->addAction(tr("&About Synaptic"), this, [this] { QMessageBox::about(this, tr("About Synaptic"), aboutText()); });
}

void ControlPlaneWindow::showGettingStarted() {
    // One guide at a time, not modal: the cluster stays usable beside it.
    if (auto *open = findChild<GettingStartedDialog *>()) {
        open->raise();
        return;
    }
    auto *guide = new GettingStartedDialog(this);
    guide->setAttribute(Qt::WA_DeleteOnClose);
    guide->show();
}

QString ControlPlaneWindow::configFolder() {
    // The user's own configs if there are any, else the shipped ones
    // (/usr/share/synaptic when the package is installed), else nowhere special.
    for (const auto &dir : engine::configSearchDirs())
        if (!QDir(QString::fromStdString(dir)).entryList({"*.json"}, QDir::Files).isEmpty())
            return QString::fromStdString(dir);
    return {};
}

void ControlPlaneWindow::greetFirstRun() {
    if (GettingStartedDialog::wanted())
        showGettingStarted();
}

void ControlPlaneWindow::setThemeEverywhere(bool dark) {
    applyTheme(dark ? Theme::Dark : Theme::Light);
    const auto chartTheme = dark ? QChart::ChartThemeDark : QChart::ChartThemeLight;
    for (auto *chart : {m_trainingChart, m_driftChart, m_bandwidthChart})
        chart->setChartTheme(chartTheme);
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
    lines << tr("Home / double-click\tReset a chart's zoom") << tr("Wheel, rubber band\tZoom a chart")
          << tr("Left / Right, middle drag\tPan a chart");
    lines.removeDuplicates();
    return lines.join('\n');
}

} // namespace synaptic::ui
