#include "local_cluster_launcher.h"

#include "remote_call.h"

#include "core/engine/sim/cluster_config_json.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThreadPool>

namespace synaptic::ui {

namespace {

constexpr int kErrorLines = 12;
const QByteArray kListening = "center listening on ";

// Runs on a pool thread: the temp folder, the config and a fresh token.
QString writeClusterFiles(const engine::ClusterConfig &config, QTemporaryDir &dir) {
    if (!dir.isValid())
        return QObject::tr("cannot create a temporary folder: %1").arg(dir.errorString());
    QFile cfg(dir.filePath("cluster.json"));
    if (!cfg.open(QIODevice::WriteOnly) || cfg.write(QByteArray::fromStdString(engine::clusterConfigToJson(config))) < 0)
        return QObject::tr("cannot write %1").arg(cfg.fileName());
    cfg.close();
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray token = QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex();
    QFile tok(dir.filePath("token"));
    // Owner-only before the secret goes in.
    if (!tok.open(QIODevice::WriteOnly) || !tok.setPermissions(QFile::ReadOwner | QFile::WriteOwner) ||
        tok.write(token + '\n') < 0)
        return QObject::tr("cannot write %1").arg(tok.fileName());
    return {};
}

} // namespace

LocalClusterLauncher::LocalClusterLauncher(engine::ClusterConfig config, QObject *parent)
    : QObject(parent), m_config(std::move(config)) {
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &LocalClusterLauncher::readOutput);
    connect(&m_process, &QProcess::readyReadStandardError, this, &LocalClusterLauncher::readErrors);
    connect(&m_process, &QProcess::finished, this, &LocalClusterLauncher::processFinished);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            fail(tr("cannot start %1: %2").arg(m_process.program(), m_process.errorString()));
    });
    m_startTimer.setSingleShot(true);
    m_startTimer.setInterval(kStartTimeoutMs);
    connect(&m_startTimer, &QTimer::timeout, this, [this] {
        fail(tr("the local cluster's center did not listen within %1 s%2").arg(kStartTimeoutMs / 1000).arg(lastWords()));
    });
    m_killTimer.setSingleShot(true);
    m_killTimer.setInterval(kGraceMs);
    connect(&m_killTimer, &QTimer::timeout, this, [this] { m_process.kill(); });
}

LocalClusterLauncher::~LocalClusterLauncher() {
    // The application is quitting with the cluster still up: end it now,
    // the same way, but synchronously (there is no event loop left to wait in).
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.disconnect(this);
    m_process.terminate();
    if (!m_process.waitForFinished(kGraceMs)) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

QString LocalClusterLauncher::findNodeBinary(QStringList *searched) {
    QStringList candidates;
    const QString env = qEnvironmentVariable("SYNAPTIC_NODE");
    if (!env.isEmpty())
        candidates << env;
    const QString here = QCoreApplication::applicationDirPath();
    candidates << here + "/synaptic-node"       // installed side by side
               << here + "/../synaptic-node"    // build tree: app/gui/synaptic, app/synaptic-node
               << here + "/../app/synaptic-node"; // build tree: tests/, bench/
    const QString onPath = QStandardPaths::findExecutable("synaptic-node");
    if (!onPath.isEmpty())
        candidates << onPath;
    if (searched)
        *searched = candidates;
    for (const QString &c : candidates) {
        const QFileInfo info(c);
        if (info.isFile() && info.isExecutable())
            return info.canonicalFilePath();
    }
    return {};
}

void LocalClusterLauncher::launch() {
    const auto &s = m_config.strategy;
    if (s != "synaptic" && s != "param_server" && s != "diloco") {
        QMetaObject::invokeMethod(this, [this] {
            fail(tr("a live cluster runs the synaptic, param_server or diloco strategy; this config's is %1")
                     .arg(QString::fromStdString(m_config.strategy)));
        }, Qt::QueuedConnection);
        return;
    }
    QPointer<LocalClusterLauncher> self(this);
    const engine::ClusterConfig config = m_config;
    QThreadPool::globalInstance()->start([self, config] {
        auto dir = std::make_shared<QTemporaryDir>(QDir::temp().filePath("synaptic-cluster-XXXXXX"));
        const QString error = writeClusterFiles(config, *dir);
        QMetaObject::invokeMethod(qApp, [self, dir, error] {
            if (self)
                self->filesReady(dir, error);
        }, Qt::QueuedConnection);
    });
}

void LocalClusterLauncher::filesReady(std::shared_ptr<QTemporaryDir> dir, const QString &error) {
    m_dir = std::move(dir);
    if (!error.isEmpty())
        return fail(error);
    QStringList searched;
    const QString node = findNodeBinary(&searched);
    if (node.isEmpty())
        return fail(tr("cannot find synaptic-node (set SYNAPTIC_NODE to it); looked at:\n%1").arg(searched.join('\n')));
    m_target.security.insecure = true;
    m_target.security.tokenFile = m_dir->filePath("token").toStdString();
    QStringList args{"cluster", "--config", m_dir->filePath("cluster.json"), "--insecure", "--token-file",
                     m_dir->filePath("token")};
    if (m_config.knobs.hubMerges) // the edges hosting hubs keep their merges there
        args << "--state-dir" << m_dir->filePath("state");
    m_process.start(node, args);
    m_startTimer.start();
}

void LocalClusterLauncher::readOutput() {
    m_partialLine += m_process.readAllStandardOutput();
    qsizetype newline;
    while ((newline = m_partialLine.indexOf('\n')) >= 0) {
        const QByteArray line = m_partialLine.left(newline).trimmed();
        m_partialLine.remove(0, newline + 1);
        m_output << QString::fromUtf8(line);
        if (!line.startsWith(kListening) || !m_target.address.empty())
            continue;
        m_target.address = line.mid(kListening.size()).trimmed().toStdString();
        m_startTimer.stop();
        // The description gives the window its config as the center parsed it.
        QPointer<LocalClusterLauncher> self(this);
        const RemoteTarget target = m_target;
        QThreadPool::globalInstance()->start([self, target] {
            auto described =
                std::make_shared<RemoteDescription>(describeCluster(target, std::chrono::milliseconds(kDescribeTimeoutMs)));
            QMetaObject::invokeMethod(qApp, [self, described] {
                if (!self || self->m_failed || self->m_stopping)
                    return;
                if (!described->ok)
                    return self->fail(QString::fromStdString(described->error));
                self->m_ready = true;
                Q_EMIT self->ready(self->m_target, described->config);
            }, Qt::QueuedConnection);
        });
    }
}

void LocalClusterLauncher::readErrors() {
    const QStringList lines = QString::fromUtf8(m_process.readAllStandardError()).split('\n', Qt::SkipEmptyParts);
    m_errors << lines;
    if (m_errors.size() > kErrorLines)
        m_errors = m_errors.mid(m_errors.size() - kErrorLines);
}

QString LocalClusterLauncher::lastWords() const {
    return m_errors.isEmpty() ? QString() : tr("; its last messages:\n%1").arg(m_errors.join('\n'));
}

void LocalClusterLauncher::fail(const QString &message) {
    if (m_failed)
        return;
    m_failed = true;
    m_startTimer.stop();
    Q_EMIT failed(message);
    stop();
}

void LocalClusterLauncher::stop() {
    if (m_process.state() == QProcess::NotRunning) {
        m_stopping = true;
        deleteLater();
        return;
    }
    if (m_stopping)
        return;
    m_stopping = true;
    m_process.terminate();
    m_killTimer.start();
}

void LocalClusterLauncher::processFinished(int exitCode, QProcess::ExitStatus) {
    m_killTimer.stop();
    m_startTimer.stop();
    readErrors();
    if (!m_ready && !m_failed && !m_stopping)
        fail(tr("synaptic-node cluster exited (code %1) before its center listened%2").arg(exitCode).arg(lastWords()));
    Q_EMIT stopped(exitCode);
    if (m_stopping || m_failed)
        deleteLater();
}

} // namespace synaptic::ui
