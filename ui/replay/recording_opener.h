#pragma once

#include "replay_recording.h"

#include <QObject>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>

class QThread;
class QWidget;

namespace synaptic::ui {

class ControlPlaneWindow;

// Opens a recording for replay without stopping the GUI (issue 13 §5): the
// file is read and indexed on a worker thread while the event loop runs;
// the window is made on the GUI thread once it is read. Cancelling stops the
// read at its next chunk. Destroying the opener cancels and waits for the
// worker. GUI thread only (the worker touches nothing of it).
class RecordingOpener : public QObject {
    Q_OBJECT
public:
    RecordingOpener(QString path, int run, QObject *parent = nullptr);
    ~RecordingOpener() override;

    void start();
    void cancel();
    double progress() const { return m_progress.load(); } // 0..1

    // The usual way: a cancellable progress dialog over `dialogParent` (may
    // be null) while it reads, then `done` with the new replay window, or
    // null and why not (empty when the user cancelled).
    using Done = std::function<void(ControlPlaneWindow *window, const QString &error)>;
    static RecordingOpener *openWithDialog(const QString &path, int run, QWidget *dialogParent, Done done);

Q_SIGNALS:
    void progressChanged(double fraction); // polled from the worker, a few times a second
    // Exactly one of these, on the GUI thread. The window is the caller's.
    void opened(synaptic::ui::ControlPlaneWindow *window);
    void failed(const QString &error); // empty: cancelled

private:
    void finish();

    QString m_path;
    int m_run;
    std::unique_ptr<QThread> m_worker;
    std::atomic<double> m_progress{0};
    std::atomic<bool> m_cancel{false};
    QTimer m_poll;
    // Written by the worker before it ends, read after: QThread::finished orders them.
    std::unique_ptr<ReplayRecording> m_result;
    QString m_error;
    bool m_cancelled = false;
};

} // namespace synaptic::ui
