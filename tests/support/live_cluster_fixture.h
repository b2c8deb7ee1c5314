#pragma once

#include "core/engine/sim/sim_command.h"
#include "core/engine/sim/sim_events.h"
#include "core/rpc/security/security_options.h"

#include "synaptic_v1.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace synaptic::test {

// A real live cluster for tests (issue 13): a `synaptic-node center` and one
// `synaptic-node edge` per edge of the config, each its own process on
// 127.0.0.1, with TLS and a bearer token made at test time (or --insecure),
// and a Control-service watcher that collects the cluster's events. Every
// process is stopped by stop() or the destructor, and leftovers() finds
// any process that still names this fixture's folder on its command line.
class LiveCluster {
public:
    struct Options {
        QString config;           // cluster config file
        int steps = 0;            // steps per edge; 0 = until stopped
        bool exitWhenDone = true; // with steps: the center exits once the run finished (false: it
                                  // stays up, serving and answering Control, until stopped)
        bool tls = true;
        bool emulateLinks = true;
        std::uint64_t evalEverySamples = 4000;
        QStringList centerArgs;   // more flags for the center
        QStringList edgeArgs;     // more flags for every edge
    };

    explicit LiveCluster(Options options);
    ~LiveCluster();

    // Certificates, token, center, every edge, then the watcher. Empty, or what failed.
    QString start();
    QString startCenter();
    QString startEdge(const QString &name);
    void killEdge(const QString &name);   // SIGKILL: no leave, no flush
    void terminateEdge(const QString &name); // SIGTERM: a clean leave
    QStringList edgeNames() const { return m_edgeNames; }
    QString centerAddress() const { return m_centerAddress; }
    QString edgeAddress(const QString &name) const { return m_edgeAddress.value(name); }
    QString dir() const { return m_dir.path(); }
    QString edgeLog(const QString &name) const;
    QString centerLog() const;

    // The events the watcher has seen so far, and a wait for a condition on them.
    std::vector<engine::SimEvent> events() const;
    bool waitFor(const std::function<bool(const std::vector<engine::SimEvent> &)> &done, int timeoutMs);
    // The first event index of a lease change to `mode` for `edge` at or after `from`, or -1.
    static int leaseIndex(const std::vector<engine::SimEvent> &events, int edge, const std::string &mode,
                          int from = 0);

    bool submit(const engine::SimCommand &command);
    bool describe(v1::ClusterDescription &out);
    std::shared_ptr<grpc::Channel> channelTo(const QString &address, bool rightToken = true) const;
    rpc::SecurityOptions security(bool rightToken = true) const;

    // Waits for the center to exit (it exits when --exit-when-done and the
    // run finished); returns its exit code or -1 on a timeout.
    int waitForCenter(int timeoutMs);
    QJsonObject report() const; // the center's --report
    void stop();
    // Processes still running that name this fixture's folder (must be empty after stop()).
    QStringList leftovers() const;

private:
    QString waitForLine(QProcess &p, const QString &prefix, int timeoutMs, QString &log);
    QStringList securityArgs() const;
    void watch();

    Options m_options;
    QTemporaryDir m_dir;
    QStringList m_edgeNames;
    std::unique_ptr<QProcess> m_center;
    QString m_centerLog;
    QString m_centerAddress;
    QMap<QString, std::shared_ptr<QProcess>> m_edges;
    QMap<QString, QString> m_edgeAddress;

    mutable std::mutex m_mutex;
    std::vector<engine::SimEvent> m_events; // guarded
    std::atomic<bool> m_stopWatch{false};
    grpc::ClientContext *m_watchContext = nullptr; // guarded
    std::thread m_watcher;
};

} // namespace synaptic::test
