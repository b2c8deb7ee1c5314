// The control plane driving a real cluster of processes (issue 13 §5): a
// `synaptic-node cluster` on loopback, watched by RemoteClusterSession and
// shown in a ControlPlaneWindow; every edge training in the views, the
// routing table as the center has it, a threshold edit applied, an edge
// killed and shown down, a live recording, a wrong token and a missing
// center refused clearly, a dropped stream reconnected, File → Launch local
// cluster opening a connected window, and no process left behind.
#include "core/session/record_codec.h"
#include "ui/control_plane_window.h"
#include "ui/models/routing_table_model.h"
#include "ui/models/shard_map_model.h"
#include "ui/panels/control_panel.h"
#include "ui/remote/local_cluster_launcher.h"
#include "ui/remote/remote_call.h"
#include "ui/remote/remote_cluster_session.h"
#include "ui/remote/remote_inbox.h"
#include "ui/remote/remote_window.h"
#include "ui/replay/replay_recording.h"
#include "ui/topology/topology_view.h"

#include "synaptic_v1.grpc.pb.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QFile>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QStringListModel>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <set>
#include <thread>

using namespace synaptic;
using namespace synaptic::ui;

namespace {

QString testData(const QString &name) { return qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/" + name; }

// Every process below `pid` (the launcher's center and edges), from /proc.
std::set<qint64> descendants(qint64 pid) {
    std::set<qint64> out;
    QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile f(tasks.filePath(tid + "/children"));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &child : f.readAll().split(' ')) {
            bool ok = false;
            const qint64 c = child.trimmed().toLongLong(&ok);
            if (!ok)
                continue;
            out.insert(c);
            const auto below = descendants(c);
            out.insert(below.begin(), below.end());
        }
    }
    return out;
}

// A zombie (exited, not yet reaped) counts as gone.
bool alive(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close >= 0 && close + 2 < text.size() && text[close + 2] != 'Z';
}

// A loopback port nobody listens on (the kernel's pick, released at once).
int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &length) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

// Reads `process`'s stdout until a line starting with `prefix`; returns the rest.
QString waitForLine(QProcess &process, const QByteArray &prefix, int timeoutMs, QStringList *lines = nullptr) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs && process.state() != QProcess::NotRunning) {
        if (!process.canReadLine() && !process.waitForReadyRead(500))
            continue;
        while (process.canReadLine()) {
            const QByteArray line = process.readLine().trimmed();
            if (lines)
                *lines << QString::fromUtf8(line);
            if (line.startsWith(prefix))
                return QString::fromUtf8(line.mid(prefix.size()).trimmed());
        }
    }
    return {};
}

QString writeToken(const QTemporaryDir &dir, const QString &name, const QByteArray &token) {
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(token + "\n");
    return f.fileName();
}

} // namespace

class TestRemoteSession : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QProcess m_cluster; // synaptic-node cluster
    RemoteTarget m_target;
    std::set<qint64> m_clusterProcesses;

    RemoteTarget target(const QString &address, const QString &tokenFile) const {
        RemoteTarget t;
        t.address = address.toStdString();
        t.security.insecure = true;
        t.security.tokenFile = tokenFile.toStdString();
        return t;
    }

    static void stopProcess(QProcess &p) {
        if (p.state() == QProcess::NotRunning)
            return;
        p.terminate();
        if (!p.waitForFinished(45000)) {
            p.kill();
            p.waitForFinished(5000);
        }
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString token = writeToken(m_dir, "token", "tst-remote-session-0123456789abcdef");
        QVERIFY(!token.isEmpty());
        // No --steps: it trains until the test stops it.
        m_cluster.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_cluster.start(qEnvironmentVariable("SYNAPTIC_NODE"),
                        {"cluster", "--config", testData("live_cluster.json"), "--insecure", "--token-file", token});
        QVERIFY2(m_cluster.waitForStarted(10000), qPrintable(m_cluster.errorString()));
        const QString address = waitForLine(m_cluster, "center listening on ", 120000);
        QVERIFY2(!address.isEmpty(), "the cluster's center did not start");
        m_target = target(address, token);
    }

    void cleanupTestCase() { stopProcess(m_cluster); }

    // Leases, commands and routing changes always reach the GUI; only
    // metric samples give way when it falls behind, and are counted.
    void inboxKeepsStateEventsAndCoalescesSamples() {
        RemoteInbox inbox(/*sampleCapacity*/ 10, /*stateCapacity*/ 1000);
        for (int i = 0; i < 100; ++i) {
            QVERIFY(inbox.pushEvent(engine::MetricEvent{double(i), "global", quint64(i), 0.5, 0.1, 0}));
            if (i % 10 == 0)
                QVERIFY(inbox.pushEvent(engine::LeaseEvent{double(i), i / 10, "training", 1}));
        }
        inbox.setRouting(std::make_shared<engine::RoutingSnapshot>());
        auto batch = inbox.take(1000);
        QCOMPARE(batch.coalesced, quint64(90));
        QCOMPARE(inbox.coalescedTotal(), quint64(90));
        int leases = 0;
        double last = -1;
        for (const auto &e : batch.events) {
            const double t = session::eventTime(e);
            QVERIFY(t >= last); // still in arrival order
            last = t;
            leases += std::holds_alternative<engine::LeaseEvent>(e);
        }
        QCOMPARE(leases, 10);
        QCOMPARE(int(batch.events.size()), 20);
        QVERIFY(batch.routing);
        QVERIFY(!inbox.take(1000).routing); // the latest table, once

        // take() hands out at most what it is asked for, oldest first.
        for (int i = 0; i < 5; ++i)
            inbox.pushEvent(engine::LeaseEvent{double(i), 0, "training", 1});
        batch = inbox.take(3);
        QCOMPARE(int(batch.events.size()), 3);
        QVERIFY(batch.more);
        QCOMPARE(int(inbox.take(10).events.size()), 2);

        // A full inbox holds the reader back rather than drop a state event;
        // close() releases it.
        RemoteInbox small(10, 2);
        QVERIFY(small.pushEvent(engine::LeaseEvent{0, 0, "training", 1}));
        QVERIFY(small.pushEvent(engine::LeaseEvent{1, 0, "training", 1}));
        std::atomic<int> pushed{0};
        std::thread reader([&] { pushed = small.pushEvent(engine::LeaseEvent{2, 0, "down", 1}) ? 1 : -1; });
        QTest::qWait(200);
        QCOMPARE(pushed.load(), 0);
        QCOMPARE(int(small.take(1).events.size()), 1);
        reader.join();
        QCOMPARE(pushed.load(), 1);
        QCOMPARE(int(small.take(10).events.size()), 2);
    }

    void aMissingCenterFailsClearly() {
        const QString address = QStringLiteral("127.0.0.1:%1").arg(freePort());
        RemoteClusterSession session(target(address, QString::fromStdString(m_target.security.tokenFile)),
                                     engine::parseClusterConfig("{\"regions\":[{\"name\":\"eu\",\"edges\":[{\"name\":"
                                                                "\"eu-0\"}]}]}",
                                                                "test"));
        QSignalSpy failed(&session, &ClusterSource::failed);
        session.start();
        QCOMPARE(session.state(), ClusterSource::State::Loading);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 15000);
        const QString message = failed[0][0].toString();
        QVERIFY2(message.contains("cannot reach the center at " + address), qPrintable(message));
        QVERIFY2(message.contains("UNAVAILABLE"), qPrintable(message));
        QCOMPARE(session.state(), ClusterSource::State::Failed);
    }

    void aWrongTokenIsRefused() {
        const QString wrong = writeToken(m_dir, "wrong-token", "not-the-cluster-token");
        const RemoteTarget bad = target(QString::fromStdString(m_target.address), wrong);
        const auto described = describeCluster(bad, std::chrono::seconds(10));
        QVERIFY(!described.ok);
        QVERIFY(described.refused);

        const auto good = describeCluster(m_target, std::chrono::seconds(10));
        QVERIFY2(good.ok, good.error.c_str());
        RemoteClusterSession session(bad, good.config);
        QSignalSpy failed(&session, &ClusterSource::failed);
        session.start();
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 15000);
        const QString message = failed[0][0].toString();
        QVERIFY2(message.contains("the center at " + QString::fromStdString(m_target.address) + " refused the token"),
                 qPrintable(message));
        QVERIFY2(message.contains("UNAUTHENTICATED"), qPrintable(message));
        QCOMPARE(session.state(), ClusterSource::State::Failed);
    }

    void theWindowDrivesTheLiveCluster() {
        const auto described = describeCluster(m_target, std::chrono::seconds(10));
        QVERIFY2(described.ok, described.error.c_str());
        QCOMPARE(described.config.regions.size(), std::size_t(2));
        std::unique_ptr<ControlPlaneWindow> window(remoteWindow(m_target, described.config));
        ControlPlaneWindow &w = *window;
        QAbstractItemModelTester routingTester(&w.routingTable(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&w.routingProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester shardTester(&w.shardMap(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester logTester(&w.eventLogProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.windowTitle().contains(QString::fromStdString(m_target.address)));
        QVERIFY(!w.embeddedSession());

        // A live cluster runs in real time: pacing controls are off and say why.
        int pacing = 0;
        for (auto *a : w.findChildren<QAction *>()) {
            const QString text = a->text().remove('&');
            if (text == "Pause" || text == "Resume" || text == "Single step") {
                QVERIFY(!a->isEnabled());
                QVERIFY2(a->toolTip().contains("real time"), qPrintable(a->toolTip()));
                ++pacing;
            }
        }
        QCOMPARE(pacing, 3);
        auto *speed = w.findChild<QComboBox *>("speedBox");
        QVERIFY(speed && !speed->isEnabled());

        w.start();
        QTRY_COMPARE_WITH_TIMEOUT(w.session().state(), ClusterSource::State::Running, 15000);

        // Every edge trains, in the shard map and the topology.
        const int edges = 4;
        for (int e = 0; e < edges; ++e) {
            QTRY_COMPARE_WITH_TIMEOUT(w.shardMap().index(e, 0).data(ShardMapModel::EdgeModeRole).toString(),
                                      QString("training"), 120000);
            QVERIFY2(w.topology().toolTipFor(e + 1).contains("training"), qPrintable(w.topology().toolTipFor(e + 1)));
        }

        // The routing table model has the center's rows.
        auto channel = openControlChannel(m_target);
        auto stub = v1::Control::NewStub(channel);
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
        session::pb::RoutingState routing;
        QVERIFY(stub->Routing(&context, v1::DescribeRequest{}, &routing).ok());
        QVERIFY(routing.rows_size() > 0);
        QTRY_COMPARE_WITH_TIMEOUT(w.routingTable().rowCount(), routing.rows_size(), 15000);
        for (int r = 0; r < routing.rows_size(); ++r) {
            QCOMPARE(w.routingTable().index(r, RoutingTableModel::Shard).data(RoutingTableModel::SortRole).toInt(),
                     routing.rows(r).id());
            QCOMPARE(w.routingTable().index(r, RoutingTableModel::Layer).data().toString(),
                     QString::fromStdString(routing.rows(r).layer()));
        }
        int chips = 0;
        for (int e = 0; e < 2; ++e) // region eu owns every shard once
            chips += w.shardMap().rowCount(w.shardMap().edgeIndex(e));
        QCOMPARE(chips, routing.rows_size());

        // Record while connected: a live recording reads back like any other.
        const QString recording = m_dir.filePath("live.synrec");
        QCOMPARE(w.startRecording(recording), QString());
        QSignalSpy saved(&w.session(), &ClusterSource::recordingStopped);

        // A threshold edit in the control panel travels to the center and comes back applied.
        w.controls().confidenceTarget()->setCurrentIndex(0);
        w.controls().confidenceBox()->setValue(0.7);
        QTRY_VERIFY_WITH_TIMEOUT(w.eventLog().stringList().join('\n').contains(
                                     "applied: set_confidence_threshold 0.7 on every edge"),
                                 20000);

        // Kill us-1 (edge 3) from the fault panel: its process exits and the views show it down.
        w.faults().select(3, 4, 1);
        w.faults().trigger(engine::SimCommand::Kind::KillNode);
        QTRY_VERIFY_WITH_TIMEOUT(w.eventLog().stringList().join('\n').contains("applied: kill us-1"), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(w.shardMap().index(3, 0).data(ShardMapModel::EdgeModeRole).toString(),
                                  QString("down"), 30000);
        QVERIFY2(w.topology().toolTipFor(4).contains("down"), qPrintable(w.topology().toolTipFor(4)));
        QCOMPARE(w.shardMap().index(0, 0).data(ShardMapModel::EdgeModeRole).toString(), QString("training"));

        w.stopRecording();
        QTRY_COMPARE(saved.size(), 1);
        const ReplayRecording replay = loadRecording(recording, 0);
        QVERIFY(replay.info.start.config_json().find("us-1") != std::string::npos);
        bool killSeen = false, downSeen = false;
        for (const auto &e : replay.data.events) {
            if (const auto *c = std::get_if<engine::CommandEvent>(&e))
                killSeen |= c->issued.kind == engine::SimCommand::Kind::KillNode && c->issued.node == 3;
            if (const auto *l = std::get_if<engine::LeaseEvent>(&e))
                downSeen |= l->edge == 3 && l->mode == "down";
        }
        QVERIFY(killSeen);
        QVERIFY(downSeen);

        // Stop disconnects; the cluster keeps running.
        QSignalSpy finished(&w.session(), &ClusterSource::finished);
        w.session().stop();
        QCOMPARE(w.session().state(), ClusterSource::State::Finished);
        QCOMPARE(finished.size(), 1);
        QVERIFY(finished[0][0].toString().contains("keeps running"));
        QVERIFY(describeCluster(m_target, std::chrono::seconds(10)).ok);
        w.close();
    }

    // SIGTERM to the launcher ends the whole cluster: nothing is left.
    void theClusterStopsWithoutLeftovers() {
        m_clusterProcesses = descendants(m_cluster.processId());
        QVERIFY2(m_clusterProcesses.size() >= 4, "the center and the live edges run under the launcher");
        m_cluster.terminate();
        QVERIFY(m_cluster.waitForFinished(60000));
        QCOMPARE(m_cluster.exitStatus(), QProcess::NormalExit);
        for (qint64 pid : m_clusterProcesses)
            QTRY_VERIFY2_WITH_TIMEOUT(!alive(pid), qPrintable(QString("process %1 is left").arg(pid)), 10000);
    }

    // A stream that drops is reconnected with backoff and the status bar
    // says so; a center that comes back with another run starts the views over.
    void aDroppedStreamReconnects() {
        const QString address = QStringLiteral("127.0.0.1:%1").arg(freePort());
        const QStringList args{"center", "--listen", address, "--config", testData("live_cluster.json"), "--insecure",
                               "--token-file", QString::fromStdString(m_target.security.tokenFile)};
        QProcess center;
        center.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        center.start(qEnvironmentVariable("SYNAPTIC_NODE"), args);
        QVERIFY(!waitForLine(center, "center listening on ", 120000).isEmpty());
        const RemoteTarget t = target(address, QString::fromStdString(m_target.security.tokenFile));
        const auto described = describeCluster(t, std::chrono::seconds(10));
        QVERIFY2(described.ok, described.error.c_str());

        RemoteClusterSession session(t, described.config);
        QStringList messages;
        connect(&session, &ClusterSource::statusMessage, this, [&](const QString &text, int) { messages << text; });
        QSignalSpy reset(&session, &ClusterSource::viewsReset);
        QSignalSpy failed(&session, &ClusterSource::failed);
        session.start();
        QTRY_COMPARE_WITH_TIMEOUT(session.state(), ClusterSource::State::Running, 15000);

        center.kill(); // as a crash would
        QVERIFY(center.waitForFinished(10000));
        QTRY_VERIFY_WITH_TIMEOUT(messages.join('\n').contains("reconnecting in"), 15000);
        QVERIFY2(messages.join('\n').contains(address), qPrintable(messages.join('\n')));
        QCOMPARE(session.state(), ClusterSource::State::Running);

        center.start(qEnvironmentVariable("SYNAPTIC_NODE"), args);
        QVERIFY(!waitForLine(center, "center listening on ", 120000).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(messages.join('\n').contains("reconnected to the center at " + address), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(reset.size(), 1, 5000); // a new center process is a new run
        QCOMPARE(failed.size(), 0);
        session.stop();
        stopProcess(center);
        QCOMPARE(center.exitStatus(), QProcess::NormalExit);
    }

    // File → Launch local cluster: a cluster of the window's config in
    // processes, a connected window on it, and closing that window ends it.
    void launchLocalClusterOpensAConnectedWindow() {
        auto config = engine::loadClusterConfig(testData("live_cluster.json").toStdString());
        config.regions.resize(1);
        config.regions[0].edges.resize(1); // one center and one edge: quick to start
        ControlPlaneWindow origin(config, "one edge");
        ControlPlaneWindow *opened = nullptr;
        LocalClusterLauncher *launcher = launchLocalCluster(config, &origin, [&](ControlPlaneWindow *w) { opened = w; });
        QPointer<LocalClusterLauncher> guard(launcher);
        QSignalSpy stopped(launcher, &LocalClusterLauncher::stopped);
        QSignalSpy failed(launcher, &LocalClusterLauncher::failed);
        QTRY_VERIFY_WITH_TIMEOUT(opened || !failed.isEmpty(), 120000);
        QVERIFY2(opened, qPrintable(failed.value(0).value(0).toString()));
        QVERIFY(opened->windowTitle().contains(launcher->address()));
        QTRY_COMPARE_WITH_TIMEOUT(opened->shardMap().index(0, 0).data(ShardMapModel::EdgeModeRole).toString(),
                                  QString("training"), 120000);
        const auto processes = descendants(launcher->processId());
        opened->close(); // WA_DeleteOnClose: the window goes, and the cluster with it
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 60000);
        QCOMPARE(stopped[0][0].toInt(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!guard, 5000); // it deleted itself
        for (qint64 pid : processes)
            QTRY_VERIFY2_WITH_TIMEOUT(!alive(pid), qPrintable(QString("process %1 is left").arg(pid)), 10000);

        // A strategy the live driver does not run is refused with the reason,
        // in a message box over the window that asked.
        config.strategy = "gossip";
        QSignalSpy why(launchLocalCluster(config, &origin), &LocalClusterLauncher::failed);
        QTRY_COMPARE(why.size(), 1);
        QVERIFY(why[0][0].toString().contains("synaptic, param_server or diloco"));
        auto *box = origin.findChild<QMessageBox *>("launchFailedBox");
        QVERIFY(box);
        QVERIFY(box->text().contains("gossip"));
        box->close();
    }
};

QTEST_MAIN(TestRemoteSession)
#include "tst_remote_session.moc"
