#include "remote_cluster_session.h"

#include "command_sender.h"
#include "control_stream.h"
#include "remote_inbox.h"

#include <cmath>
#include <limits>

namespace synaptic::ui {

RemoteClusterSession::RemoteClusterSession(RemoteTarget target, engine::ClusterConfig config, QObject *parent)
    : ClusterSource(parent), m_target(std::move(target)), m_config(std::move(config)) {
    m_drainTimer.setInterval(kCoalesceMs);
    connect(&m_drainTimer, &QTimer::timeout, this, &RemoteClusterSession::drain);
}

RemoteClusterSession::~RemoteClusterSession() {
    shutDown();
    stopRecording();
}

QString RemoteClusterSession::pacingUnavailableReason() const {
    return tr("a live cluster runs in real time: its processes cannot be paused, stepped or sped up from here");
}

QString RemoteClusterSession::clockName() const { return tr("live at %1 · cluster clock").arg(address()); }

QString RemoteClusterSession::startToolTip() const { return tr("Connect to the cluster at %1").arg(address()); }

QString RemoteClusterSession::stopToolTip() const {
    return tr("Disconnect from the cluster at %1 (the cluster keeps running)").arg(address());
}

void RemoteClusterSession::start() {
    if (state() == State::Loading || state() == State::Running)
        return;
    shutDown();
    forgetRouting();
    m_finishedSeen = false;
    m_coalesced = 0;
    m_inbox = std::make_unique<RemoteInbox>();
    std::vector<int> regionOfEdge;
    for (std::size_t r = 0; r < m_config.regions.size(); ++r)
        regionOfEdge.insert(regionOfEdge.end(), m_config.regions[r].edges.size(), int(r));
    m_stream = std::make_unique<ControlStream>(m_target, regionOfEdge, *m_inbox,
                                               [this](const engine::SimEvent &e) { recordEvent(e); });
    RemoteInbox *inbox = m_inbox.get(); // outlives the sender: shutDown() ends the sender first
    m_sender = std::make_unique<CommandSender>(m_target, [inbox](const std::string &why) {
        inbox->notify({RemoteInbox::Notice::Kind::CommandFailed, why});
    });
    setState(State::Loading);
    Q_EMIT statusMessage(tr("connecting to the cluster at %1…").arg(address()), 0);
    m_stream->start();
    m_drainTimer.start();
}

void RemoteClusterSession::stop() {
    if (state() != State::Loading && state() != State::Running) {
        shutDown(); // a finished run's stream may still be open
        return;
    }
    end(State::Finished, tr("disconnected from the cluster at %1 (it keeps running)").arg(address()));
}

void RemoteClusterSession::submit(const engine::SimCommand &command) {
    if (!m_sender || (state() != State::Loading && state() != State::Running && !m_finishedSeen)) {
        Q_EMIT statusMessage(tr("not connected to the cluster at %1: %2 was not sent")
                                 .arg(address(), QString::fromStdString(command.describe())),
                             10000);
        return;
    }
    m_sender->send(command);
}

void RemoteClusterSession::shutDown() {
    // The inbox first: a reader blocked on a full inbox wakes and ends.
    if (m_inbox)
        m_inbox->close();
    m_stream.reset(); // cancels its call and joins
    m_sender.reset();
}

void RemoteClusterSession::drain() {
    if (!m_inbox)
        return;
    auto b = m_inbox->take(kMaxEventsPerDrain);
    if (b.reset) {
        forgetRouting();
        m_finishedSeen = false;
        stopRecording(); // the file belongs to the run that ended
        Q_EMIT viewsReset();
        Q_EMIT statusMessage(tr("the center at %1 started another run: showing it from its start").arg(address()),
                             10000);
    }
    if (!b.events.empty())
        Q_EMIT eventsBatch(QVector<engine::SimEvent>(b.events.begin(), b.events.end()));
    if (b.routing)
        offerRouting(std::move(b.routing));
    if (b.status)
        applyStatus(*b.status);
    if (b.coalesced > 0) {
        m_coalesced += b.coalesced;
        Q_EMIT statusMessage(tr("%1 metric samples coalesced so far: the window fell behind the cluster "
                                "(leases, routing and commands are all shown)")
                                 .arg(m_coalesced),
                             8000);
    }
    for (const auto &n : b.notices) {
        const QString text = QString::fromStdString(n.text);
        using K = RemoteInbox::Notice::Kind;
        switch (n.kind) {
        case K::Connected:
            if (state() == State::Loading)
                setState(State::Running);
            Q_EMIT statusMessage(text, 5000);
            break;
        case K::Reconnecting: Q_EMIT statusMessage(text, 0); break;
        case K::CommandFailed: Q_EMIT statusMessage(text, 10000); break;
        case K::Failed: end(State::Failed, text); return;
        case K::Ended: end(State::Finished, text); return;
        }
    }
}

void RemoteClusterSession::applyStatus(const ClusterStatus &status) {
    m_clusterTime = status.clusterTime;
    m_samples = status.samples;
    Q_EMIT progress(m_clusterTime, m_samples);
    if (status.finished && !m_finishedSeen) {
        // The stream stays open (the center may keep serving); the run is over.
        m_finishedSeen = true;
        const double accuracy = status.finalAccuracy;
        setState(State::Finished);
        Q_EMIT finished(tr("the cluster at %1 finished its run: accuracy %2 after %3 samples, %4 s")
                            .arg(address())
                            .arg(std::isnan(accuracy) ? tr("n/a") : QString::number(accuracy, 'f', 4))
                            .arg(status.samples)
                            .arg(status.clusterTime, 0, 'f', 1));
    }
}

// The session is over: whatever the reader queued before it ended is still shown.
void RemoteClusterSession::end(State state, const QString &message) {
    m_drainTimer.stop();
    shutDown();
    if (m_inbox) {
        auto rest = m_inbox->take(std::numeric_limits<std::size_t>::max());
        if (!rest.events.empty())
            Q_EMIT eventsBatch(QVector<engine::SimEvent>(rest.events.begin(), rest.events.end()));
        if (rest.routing)
            offerRouting(std::move(rest.routing));
        if (rest.status)
            applyStatus(*rest.status);
    }
    stopRecording();
    const bool alreadyFinished = m_finishedSeen && state == State::Finished;
    setState(state);
    if (state == State::Failed)
        Q_EMIT failed(message);
    else if (!alreadyFinished)
        Q_EMIT finished(message);
    else
        Q_EMIT statusMessage(message, 10000);
}

} // namespace synaptic::ui
