// The record button (issue 5): records the live run to a file while it
// runs; the status bar shows the elapsed time and the file's size.
#include "control_plane_window.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QToolBar>

namespace synaptic::ui {

QString ControlPlaneWindow::recordingsFolder() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("recordings");
}

void ControlPlaneWindow::buildRecordControls(QToolBar *toolbar) {
    m_recordAction = toolbar->addAction(tr("● Record"));
    m_recordAction->setCheckable(true);
    m_recordAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_recordAction->setToolTip(tr("Record this session to a file in %1 (Ctrl+Shift+R); File → Record to… "
                                  "picks the file")
                                   .arg(recordingsFolder()));
    m_runMenu->addSeparator();
    m_runMenu->addAction(m_recordAction);
    connect(m_recordAction, &QAction::triggered, this, [this](bool on) {
        if (!on) {
            stopRecording();
        } else if (const QString error = startRecording(); !error.isEmpty()) {
            m_recordAction->setChecked(false);
            QMessageBox::warning(this, tr("Cannot record"), error);
        }
    });
    m_recordStatus = new QLabel;
    m_recordStatus->setObjectName("recordStatus");
    m_recordStatus->hide();
    statusBar()->addPermanentWidget(m_recordStatus);
    m_recordTimer.setInterval(500);
    connect(&m_recordTimer, &QTimer::timeout, this, &ControlPlaneWindow::updateRecordingStatus);
    connect(m_session, &ClusterSource::recordingStopped, this, [this](const QString &path, const QString &summary) {
        m_recordTimer.stop();
        m_recordStatus->hide();
        m_recordAction->setChecked(false);
        statusBar()->showMessage(tr("recording saved to %1 (%2)").arg(path, summary), 15000);
    });
}

QString ControlPlaneWindow::startRecording(const QString &path) {
    QString file = path;
    if (file.isEmpty())
        file = QDir(recordingsFolder())
                   .filePath(QStringLiteral("synaptic-%1.synrec")
                                 .arg(QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss")));
    const QString error = m_session->startRecording(file);
    if (!error.isEmpty())
        return error;
    m_recordAction->setChecked(true);
    m_recordStatus->show();
    updateRecordingStatus();
    m_recordTimer.start();
    return {};
}

void ControlPlaneWindow::stopRecording() { m_session->stopRecording(); }

void ControlPlaneWindow::updateRecordingStatus() {
    const auto s = m_session->recordingStatus();
    if (!s.active)
        return;
    const int seconds = int(s.wallSeconds);
    QString text = tr("● REC %1:%2 · %3 MB · %4 events")
                       .arg(seconds / 60)
                       .arg(seconds % 60, 2, 10, QLatin1Char('0'))
                       .arg(double(s.bytes) / 1e6, 0, 'f', 2)
                       .arg(s.events);
    if (s.coalesced)
        text += tr(" · %1 samples coalesced").arg(s.coalesced);
    if (!s.error.isEmpty())
        text += tr(" · stopped: %1").arg(s.error);
    m_recordStatus->setText(text);
    m_recordStatus->setToolTip(s.path);
}

} // namespace synaptic::ui
