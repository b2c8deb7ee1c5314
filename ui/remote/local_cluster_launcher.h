#pragma once

#include "remote_target.h"

#include "core/engine/sim/cluster_config.h"

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

#include <memory>

class QTemporaryDir;

namespace synaptic::ui {

// File → Launch local cluster… (issue 13 §5): runs `synaptic-node cluster
// --config <config in a temp file> --insecure --token-file <fresh token>`
// as a child process, waits for its "center listening on ADDR" line, asks
// the center for its description (off the GUI thread) and says ready().
// stop() ends the cluster: SIGTERM (the launcher stops its edges and
// center in order), then SIGKILL after kGraceMs (its children die with
// it). The object deletes itself once the process is gone; if the
// application quits first, the destructor does the same synchronously.
// Nothing here blocks the GUI thread: files are written and the center is
// asked on QThreadPool threads, the process is read through signals.
class LocalClusterLauncher : public QObject {
    Q_OBJECT
public:
    explicit LocalClusterLauncher(engine::ClusterConfig config, QObject *parent = nullptr);
    ~LocalClusterLauncher() override;

    // $SYNAPTIC_NODE, else synaptic-node beside this program, in the build
    // tree's app/ folder, or on PATH. Empty if none; `searched` lists where.
    static QString findNodeBinary(QStringList *searched = nullptr);

    void launch(); // once
    void stop();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    qint64 processId() const { return m_process.processId(); }
    QString address() const { return QString::fromStdString(m_target.address); }
    // The cluster's stdout so far ("edge eu-0 listening on ... (pid N)").
    QStringList output() const { return m_output; }

    static constexpr int kStartTimeoutMs = 120000;
    static constexpr int kGraceMs = 30000; // the launcher gives its edges 15 s and its center 10 s
    static constexpr int kDescribeTimeoutMs = 10000;

Q_SIGNALS:
    // The center listens and described its cluster: open a window on `target`.
    void ready(const synaptic::ui::RemoteTarget &target, const synaptic::engine::ClusterConfig &config);
    // It could not start (the message says why, with the cluster's last words).
    void failed(const QString &message);
    void stopped(int exitCode);

private:
    void filesReady(std::shared_ptr<QTemporaryDir> dir, const QString &error);
    void readOutput();
    void readErrors();
    void processFinished(int exitCode, QProcess::ExitStatus status);
    void fail(const QString &message);
    QString lastWords() const;

    const engine::ClusterConfig m_config;
    QProcess m_process;
    QTimer m_startTimer;
    QTimer m_killTimer;
    std::shared_ptr<QTemporaryDir> m_dir; // config and token: alive while the cluster runs (revived edges read them)
    RemoteTarget m_target;
    QByteArray m_partialLine;
    QStringList m_output;
    QStringList m_errors; // the last lines of its stderr, for failure messages
    bool m_ready = false;
    bool m_failed = false;
    bool m_stopping = false;
};

} // namespace synaptic::ui

Q_DECLARE_METATYPE(synaptic::ui::RemoteTarget)
