#include "main_window.h"

#include "charts/training_chart.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

namespace synaptic::ui {

namespace {
const char *kGeometryKey = "mainWindow/geometry";
const char *kStateKey = "mainWindow/state";
const char *kThemeKey = "view/theme";

QString formatSeconds(double s) {
    if (s < 0 || !std::isfinite(s))
        return "?";
    const int total = int(s + 0.5);
    return total >= 60 ? QString("%1m%2s").arg(total / 60).arg(total % 60, 2, 10, QChar('0'))
                       : QString("%1s").arg(total);
}
} // namespace

MainWindow::MainWindow(const engine::TrainConfig &config, QWidget *parent) : QMainWindow(parent) {
    setObjectName("SynapticMainWindow");
    setWindowTitle("Synaptic — training control plane");
    m_session.setConfig(config);

    m_chart = new TrainingChart(this);
    m_chart->setObjectName("trainingChart");
    setCentralWidget(m_chart);

    buildActions();
    buildMenus();
    buildRunPanel();

    m_progressBar = new QProgressBar(this);
    m_progressBar->setRange(0, 1000);
    m_progressBar->setMaximumWidth(240);
    m_progressBar->setTextVisible(true);
    m_progressBar->setFormat("%p%");
    m_statusLabel = new QLabel("Ready", this);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progressBar);

    connect(&m_session, &TrainingSession::progressBatch, this, &MainWindow::onProgress);
    connect(&m_session, &TrainingSession::stateChanged, this, &MainWindow::onStateChanged);
    connect(&m_session, &TrainingSession::finished, this, &MainWindow::onFinished);
    connect(&m_session, &TrainingSession::failed, this, &MainWindow::onFailed);

    resize(1180, 720);
    restoreSettings();
    onStateChanged(m_session.state());
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
    QStyle *s = style();
    m_startAction = new QAction(s->standardIcon(QStyle::SP_MediaPlay), "&Start", this);
    m_startAction->setShortcut(QKeySequence("Ctrl+R"));
    m_startAction->setToolTip("Start training (Ctrl+R)");
    m_pauseAction = new QAction(s->standardIcon(QStyle::SP_MediaPause), "&Pause", this);
    m_pauseAction->setShortcut(QKeySequence("Space"));
    m_pauseAction->setCheckable(true);
    m_pauseAction->setToolTip("Pause or resume at the next step (Space)");
    m_stopAction = new QAction(s->standardIcon(QStyle::SP_MediaStop), "S&top", this);
    m_stopAction->setShortcut(QKeySequence("Ctrl+."));
    m_stopAction->setToolTip("Stop after the current step and evaluate (Ctrl+.)");
    connect(m_startAction, &QAction::triggered, this, &MainWindow::startTraining);
    connect(m_pauseAction, &QAction::triggered, this, &MainWindow::togglePause);
    connect(m_stopAction, &QAction::triggered, this, &MainWindow::stopTraining);

    auto *toolbar = addToolBar("Run");
    toolbar->setObjectName("runToolbar");
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(m_startAction);
    toolbar->addAction(m_pauseAction);
    toolbar->addAction(m_stopAction);
}

void MainWindow::buildMenus() {
    QMenu *file = menuBar()->addMenu("&File");
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

    QMenu *run = menuBar()->addMenu("&Run");
    run->addAction(m_startAction);
    run->addAction(m_pauseAction);
    run->addAction(m_stopAction);

    QMenu *view = menuBar()->addMenu("&View");
    auto *group = new QActionGroup(this);
    m_darkAction = view->addAction("&Dark theme");
    m_lightAction = view->addAction("&Light theme");
    for (QAction *a : {m_darkAction, m_lightAction}) {
        a->setCheckable(true);
        group->addAction(a);
    }
    connect(m_darkAction, &QAction::triggered, this, [this] { setTheme(Theme::Dark); });
    connect(m_lightAction, &QAction::triggered, this, [this] { setTheme(Theme::Light); });

    QMenu *help = menuBar()->addMenu("&Help");
    help->addAction("&About Synaptic", this, [this] {
        QMessageBox::about(this, "About Synaptic",
                           QString("<b>Synaptic %1</b><br>CDN-style sharded neural-network training.<br>Qt %2")
                               .arg(QApplication::applicationVersion(), qVersion()));
    });
}

void MainWindow::buildRunPanel() {
    auto *dock = new QDockWidget("Run", this);
    dock->setObjectName("runDock");
    m_runSummary = new QLabel(dock);
    m_runSummary->setObjectName("runSummary");
    m_runSummary->setTextFormat(Qt::RichText);
    m_runSummary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_runSummary->setMargin(10);
    m_runSummary->setMinimumWidth(230);
    dock->setWidget(m_runSummary);
    addDockWidget(Qt::RightDockWidgetArea, dock);
}

void MainWindow::restoreSettings() {
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
    setTheme(themeFromName(settings.value(kThemeKey, "dark").toString()));
}

void MainWindow::closeEvent(QCloseEvent *event) {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kThemeKey, themeName(m_theme));
    m_session.abort();
    event->accept();
}

void MainWindow::setTheme(Theme theme) {
    m_theme = theme;
    applyTheme(theme);
    m_chart->setChartTheme(theme == Theme::Dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    (theme == Theme::Dark ? m_darkAction : m_lightAction)->setChecked(true);
}

void MainWindow::startTraining() {
    m_chart->clear();
    m_last = {};
    m_session.start();
}

void MainWindow::togglePause() {
    if (m_session.state() == TrainingSession::State::Running)
        m_session.pause();
    else if (m_session.state() == TrainingSession::State::Paused)
        m_session.resume();
}

void MainWindow::stopTraining() { m_session.stop(); }

void MainWindow::onProgress(const QVector<engine::TrainProgress> &batch) {
    m_chart->append(batch);
    for (const auto &p : batch) {
        const double lastAcc = m_last.testAccuracy;
        const double lastExit = m_last.exitTestAccuracy;
        m_last = p;
        if (p.testAccuracy < 0) { // keep the latest evaluation on step reports
            m_last.testAccuracy = lastAcc;
            m_last.exitTestAccuracy = lastExit;
        }
    }
    const auto &p = m_last;
    if (p.totalSteps > 0)
        m_progressBar->setValue(int(1000.0 * double(p.step) / double(p.totalSteps)));
    m_statusLabel->setText(QString("Epoch %1/%2 · step %3/%4 · %5 samples/s · ETA %6")
                               .arg(p.epoch)
                               .arg(p.epochs)
                               .arg(p.step)
                               .arg(p.totalSteps)
                               .arg(p.samplesPerSecond, 0, 'f', 0)
                               .arg(formatSeconds(p.etaSeconds)));
    const auto cfg = m_session.config();
    const QString acc = p.testAccuracy >= 0 ? QString::number(p.testAccuracy * 100, 'f', 2) + " %" : "—";
    const QString exitAcc =
        p.exitTestAccuracy >= 0 ? QString::number(p.exitTestAccuracy * 100, 'f', 2) + " %" : "—";
    m_runSummary->setText(QString("<table cellspacing=4>"
                                  "<tr><td>Epoch</td><td align=right><b>%1 / %2</b></td></tr>"
                                  "<tr><td>Step</td><td align=right>%3</td></tr>"
                                  "<tr><td>Samples seen</td><td align=right>%4</td></tr>"
                                  "<tr><td>Loss</td><td align=right>%5</td></tr>"
                                  "<tr><td>Test accuracy</td><td align=right><b>%6</b></td></tr>"
                                  "<tr><td>Exit-head accuracy</td><td align=right>%7</td></tr>"
                                  "<tr><td>Throughput</td><td align=right>%8 samples/s</td></tr>"
                                  "<tr><td>Training time</td><td align=right>%9</td></tr>"
                                  "<tr><td>Batch · lr</td><td align=right>%10 · %11</td></tr>"
                                  "</table>")
                              .arg(p.epoch)
                              .arg(p.epochs)
                              .arg(p.step)
                              .arg(p.samplesSeen)
                              .arg(p.loss, 0, 'f', 4)
                              .arg(acc, exitAcc)
                              .arg(p.samplesPerSecond, 0, 'f', 0)
                              .arg(formatSeconds(p.trainSeconds))
                              .arg(cfg.batchSize)
                              .arg(cfg.learningRate));
}

void MainWindow::onStateChanged(TrainingSession::State state) {
    using S = TrainingSession::State;
    const bool active = state == S::Running || state == S::Paused;
    m_startAction->setEnabled(!active && state != S::Stopping);
    m_pauseAction->setEnabled(active);
    m_pauseAction->setChecked(state == S::Paused);
    m_stopAction->setEnabled(active);
    if (state == S::Paused)
        m_statusLabel->setText("Paused");
    else if (state == S::Stopping)
        m_statusLabel->setText("Stopping after the current step…");
    else if (state == S::Running && m_last.step == 0)
        m_statusLabel->setText("Loading Fashion-MNIST and starting…");
}

void MainWindow::onFinished(const engine::TrainReport &report) {
    m_statusLabel->setText(QString("%1 · test accuracy %2 % · exit head %3 % · %4 samples/s · device %5")
                               .arg(report.stopped ? "Stopped" : "Finished")
                               .arg(report.testAccuracy * 100, 0, 'f', 2)
                               .arg(report.exitTestAccuracy * 100, 0, 'f', 2)
                               .arg(report.samplesPerSecond, 0, 'f', 0)
                               .arg(QString::fromStdString(report.device)));
}

void MainWindow::onFailed(const QString &message) {
    m_statusLabel->setText("Training failed: " + message);
    // open(), not exec(): a modal loop would stall live updates and tests.
    auto *box = new QMessageBox(QMessageBox::Critical, "Training failed", message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace synaptic::ui
