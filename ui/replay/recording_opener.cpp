#include "recording_opener.h"

#include "ui/control_plane_window.h"

#include <QFileInfo>
#include <QMainWindow>
#include <QPointer>
#include <QProgressDialog>
#include <QStatusBar>
#include <QThread>

namespace synaptic::ui {

RecordingOpener::RecordingOpener(QString path, int run, QObject *parent)
    : QObject(parent), m_path(std::move(path)), m_run(run) {
    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, [this] { Q_EMIT progressChanged(progress()); });
}

RecordingOpener::~RecordingOpener() {
    if (m_worker) {
        cancel();
        m_worker->wait();
    }
}

void RecordingOpener::start() {
    if (m_worker)
        return;
    m_worker.reset(QThread::create([this] {
        try {
            m_result = std::make_unique<ReplayRecording>(loadRecording(m_path, m_run, [this](double f) {
                m_progress.store(f);
                return !m_cancel.load();
            }));
        } catch (const session::Cancelled &) {
            m_cancelled = true;
        } catch (const std::exception &e) {
            m_error = QString::fromStdString(e.what());
        }
    }));
    // Queued to this (GUI) thread; gone with this object if it is destroyed first.
    connect(m_worker.get(), &QThread::finished, this, &RecordingOpener::finish, Qt::QueuedConnection);
    m_poll.start();
    m_worker->start();
}

void RecordingOpener::cancel() { m_cancel.store(true); }

void RecordingOpener::finish() {
    m_poll.stop();
    m_progress.store(1);
    if (m_cancel.load() || m_cancelled) {
        m_result.reset(); // a cancel that came after the last chunk still cancels
        Q_EMIT failed({});
    } else if (!m_result) {
        Q_EMIT failed(m_error);
    } else {
        ControlPlaneWindow *w = ControlPlaneWindow::replayWindow(std::move(*m_result));
        m_result.reset();
        Q_EMIT opened(w);
    }
}

RecordingOpener *RecordingOpener::openWithDialog(const QString &path, int run, QWidget *dialogParent, Done done) {
    auto *opener = new RecordingOpener(path, run);
    auto *dialog = new QProgressDialog(QObject::tr("Reading %1…").arg(QFileInfo(path).fileName()),
                                       QObject::tr("Cancel"), 0, 1000, dialogParent);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(300); // only long opens show it
    dialog->setAutoReset(false);
    dialog->setAutoClose(false);
    dialog->setValue(0);
    connect(opener, &RecordingOpener::progressChanged, dialog,
            [dialog](double f) { dialog->setValue(std::min(999, int(f * 1000))); });
    // The window it was opened from says so in its status bar too (issue
    // 18 §1), which stays readable when the dialog is moved away.
    QPointer<QStatusBar> status;
    if (auto *main = qobject_cast<QMainWindow *>(dialogParent))
        status = main->statusBar();
    const QString name = QFileInfo(path).fileName();
    if (status)
        connect(opener, &RecordingOpener::progressChanged, status, [status, name](double f) {
            status->showMessage(QObject::tr("reading %1: %2%").arg(name).arg(int(f * 100)));
        });
    connect(dialog, &QProgressDialog::canceled, opener, &RecordingOpener::cancel);
    // The dialog goes with its parent, which may close while the file is read.
    auto end = [opener, dialog = QPointer<QProgressDialog>(dialog), status, done](ControlPlaneWindow *w,
                                                                         const QString &error) {
        if (dialog) {
            dialog->hide(); // not close(): that would say "canceled"
            dialog->deleteLater();
        }
        if (status)
            status->clearMessage();
        opener->deleteLater();
        done(w, error);
    };
    connect(opener, &RecordingOpener::opened, opener, [end](ControlPlaneWindow *w) { end(w, {}); });
    connect(opener, &RecordingOpener::failed, opener, [end](const QString &error) { end(nullptr, error); });
    opener->start();
    return opener;
}

} // namespace synaptic::ui
