#include "live_cluster_fixture.h"

#include "test_certificates.h"

#include "core/engine/sim/cluster_config.h"
#include "core/rpc/live/server_setup.h"
#include "core/session/record_codec.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QThread>

#include <csignal>
#include <chrono>

namespace synaptic::test {

namespace {
QString nodeBinary() { return qEnvironmentVariable("SYNAPTIC_NODE", "synaptic-node"); }
} // namespace

LiveCluster::LiveCluster(Options options) : m_options(std::move(options)) {
    // SYNAPTIC_KEEP_TEST_DIR=1 keeps the logs, certificates and report.
    m_dir.setAutoRemove(qEnvironmentVariableIsEmpty("SYNAPTIC_KEEP_TEST_DIR"));
    const auto config = engine::loadClusterConfig(m_options.config.toStdString());
    for (const auto &r : config.regions)
        for (const auto &e : r.edges)
            m_edgeNames << QString::fromStdString(e.name);
}

LiveCluster::~LiveCluster() { stop(); }

QStringList LiveCluster::securityArgs() const {
    QStringList a{"--token-file", m_dir.filePath("token"), "--threads", "1"};
    if (m_options.tls)
        a << "--tls-cert" << m_dir.filePath("node.pem") << "--tls-key" << m_dir.filePath("node.key") << "--tls-ca"
          << m_dir.filePath("ca.pem");
    else
        a << "--insecure";
    if (!m_options.emulateLinks)
        a << "--no-link-emulation";
    return a;
}

rpc::SecurityOptions LiveCluster::security(bool rightToken) const {
    rpc::SecurityOptions s;
    s.tokenFile = m_dir.filePath(rightToken ? "token" : "wrong-token").toStdString();
    if (m_options.tls)
        s.caFile = m_dir.filePath("ca.pem").toStdString();
    else
        s.insecure = true;
    return s;
}

std::shared_ptr<grpc::Channel> LiveCluster::channelTo(const QString &address, bool rightToken) const {
    return rpc::openChannel(address.toStdString(), rpc::loadSecurity(security(rightToken)), rpc::WireLimits{});
}

QString LiveCluster::waitForLine(QProcess &p, const QString &prefix, int timeoutMs, QString &log) {
    QElapsedTimer clock;
    clock.start();
    QByteArray buffer;
    while (clock.elapsed() < timeoutMs) {
        p.waitForReadyRead(100);
        buffer += p.readAllStandardOutput();
        for (const auto &line : buffer.split('\n'))
            if (line.startsWith(prefix.toUtf8()))
                return QString::fromUtf8(line.mid(prefix.size())).trimmed();
        if (p.state() == QProcess::NotRunning)
            return {};
    }
    return {};
}

QString LiveCluster::startCenter() {
    m_center = std::make_unique<QProcess>();
    QStringList args{"center", "--listen", "127.0.0.1:0", "--config", m_options.config, "--report",
                     m_dir.filePath("report.json"), "--eval-every-samples",
                     QString::number(m_options.evalEverySamples)};
    if (m_options.steps > 0)
        args << "--steps" << QString::number(m_options.steps);
    if (m_options.steps > 0 && m_options.exitWhenDone)
        args << "--exit-when-done";
    args << securityArgs() << m_options.centerArgs;
    // Logs go to files: a pipe nobody reads would fill and stop the process.
    m_center->setStandardErrorFile(m_dir.filePath("center.log"));
    m_center->start(nodeBinary(), args);
    m_centerAddress = waitForLine(*m_center, "center listening on ", 120000, m_centerLog);
    if (m_centerAddress.isEmpty())
        return "the center did not start: " + centerLog();
    return {};
}

QString LiveCluster::startEdge(const QString &name) {
    if (auto old = m_edges.value(name); old && old->state() != QProcess::NotRunning)
        return "edge " + name + " is still running";
    auto p = std::make_shared<QProcess>();
    p->setStandardErrorFile(m_dir.filePath(name + ".log"), QIODevice::Append);
    p->start(nodeBinary(), QStringList{"edge", "--center", m_centerAddress, "--name", name, "--listen",
                                       "127.0.0.1:0"} + securityArgs() + m_options.edgeArgs);
    QString log;
    const QString address = waitForLine(*p, "edge " + name + " listening on ", 120000, log);
    if (address.isEmpty())
        return "edge " + name + " did not start: " + edgeLog(name);
    m_edges[name] = p;
    m_edgeAddress[name] = address;
    return {};
}

QString LiveCluster::edgeLog(const QString &name) const {
    QFile f(m_dir.filePath(name + ".log"));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString LiveCluster::centerLog() const {
    QFile f(m_dir.filePath("center.log"));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString LiveCluster::start() {
    if (!m_dir.isValid())
        return "no temporary folder";
    if (auto e = makeTestCertificates(m_dir.path()); !e.isEmpty())
        return e;
    if (auto e = startCenter(); !e.isEmpty())
        return e;
    for (const auto &name : m_edgeNames)
        if (auto e = startEdge(name); !e.isEmpty())
            return e;
    m_watcher = std::thread([this] { watch(); });
    return {};
}

void LiveCluster::killEdge(const QString &name) {
    if (auto p = m_edges.value(name)) {
        ::kill(pid_t(p->processId()), SIGKILL);
        p->waitForFinished(10000);
    }
}

void LiveCluster::terminateEdge(const QString &name) {
    if (auto p = m_edges.value(name)) {
        p->terminate();
        p->waitForFinished(20000);
    }
}

void LiveCluster::watch() {
    auto stub = v1::Control::NewStub(channelTo(m_centerAddress));
    std::size_t seen = 0; // each stream replays the run from its start
    while (!m_stopWatch) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::hours(1));
        {
            std::lock_guard lock(m_mutex);
            m_watchContext = &ctx;
        }
        auto reader = stub->Watch(&ctx, v1::ControlWatchRequest{});
        v1::ControlUpdate u;
        std::size_t index = 0;
        while (reader->Read(&u)) {
            if (!u.has_event())
                continue;
            if (index++ < seen)
                continue;
            seen = index;
            if (auto ev = session::fromProto(u.event())) {
                std::lock_guard lock(m_mutex);
                m_events.push_back(std::move(*ev));
            }
        }
        reader->Finish();
        {
            std::lock_guard lock(m_mutex);
            m_watchContext = nullptr;
        }
        if (!m_stopWatch)
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

std::vector<engine::SimEvent> LiveCluster::events() const {
    std::lock_guard lock(m_mutex);
    return m_events;
}

bool LiveCluster::waitFor(const std::function<bool(const std::vector<engine::SimEvent> &)> &done, int timeoutMs) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        if (done(events()))
            return true;
        QThread::msleep(100);
    }
    return done(events());
}

int LiveCluster::leaseIndex(const std::vector<engine::SimEvent> &events, int edge, const std::string &mode, int from) {
    for (int i = from; i < int(events.size()); ++i)
        if (const auto *l = std::get_if<engine::LeaseEvent>(&events[std::size_t(i)]))
            if (l->edge == edge && l->mode == mode)
                return i;
    return -1;
}

bool LiveCluster::submit(const engine::SimCommand &command) {
    auto stub = v1::Control::NewStub(channelTo(m_centerAddress));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::SubmitReply reply;
    return stub->Submit(&ctx, session::toProto(command), &reply).ok() && reply.accepted();
}

bool LiveCluster::describe(v1::ClusterDescription &out) {
    auto stub = v1::Control::NewStub(channelTo(m_centerAddress));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return stub->Describe(&ctx, v1::DescribeRequest{}, &out).ok();
}

int LiveCluster::waitForCenter(int timeoutMs) {
    if (!m_center)
        return -1;
    if (!m_center->waitForFinished(timeoutMs))
        return -1;
    return m_center->exitCode();
}

QJsonObject LiveCluster::report() const {
    QFile f(m_dir.filePath("report.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

void LiveCluster::stop() {
    m_stopWatch = true;
    {
        std::lock_guard lock(m_mutex);
        if (m_watchContext)
            m_watchContext->TryCancel();
    }
    if (m_watcher.joinable())
        m_watcher.join();
    for (auto &p : m_edges)
        if (p->state() != QProcess::NotRunning)
            p->terminate();
    for (auto &p : m_edges)
        if (!p->waitForFinished(20000)) {
            p->kill();
            p->waitForFinished(5000);
        }
    if (m_center && m_center->state() != QProcess::NotRunning) {
        m_center->terminate();
        if (!m_center->waitForFinished(20000)) {
            m_center->kill();
            m_center->waitForFinished(5000);
        }
    }
}

QStringList LiveCluster::leftovers() const {
    QStringList found;
    const QByteArray marker = m_dir.path().toUtf8();
    const auto self = QByteArray::number(QCoreApplication::applicationPid());
    for (const auto &pid : QDir("/proc").entryList(QDir::Dirs)) {
        if (pid.toUtf8() == self)
            continue;
        QFile cmd("/proc/" + pid + "/cmdline");
        if (!cmd.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = cmd.readAll();
        if (line.contains(marker))
            found << pid + ": " + QString::fromUtf8(line).replace(QChar('\0'), ' ');
    }
    return found;
}

} // namespace synaptic::test
