#include "control_stream.h"

#include "remote_call.h"
#include "remote_inbox.h"

#include "core/session/record_codec.h"

#include "synaptic_v1.grpc.pb.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace synaptic::ui {

namespace {
using Clock = std::chrono::steady_clock;
using Notice = RemoteInbox::Notice;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string oneDecimal(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}
} // namespace

ControlStream::ControlStream(RemoteTarget target, std::vector<int> regionOfEdge, RemoteInbox &inbox,
                             std::function<void(const engine::SimEvent &)> observer)
    : m_target(std::move(target)), m_regionOfEdge(std::move(regionOfEdge)), m_inbox(inbox),
      m_observer(std::move(observer)) {}

ControlStream::~ControlStream() { stop(); }

void ControlStream::start() {
    if (!m_thread.joinable())
        m_thread = std::thread([this] { run(); });
}

void ControlStream::stop() {
    m_stop = true;
    m_slot.cancel();
    {
        std::lock_guard lock(m_sleepMutex);
        m_wake.notify_all();
    }
    if (m_thread.joinable())
        m_thread.join();
}

bool ControlStream::sleepFor(double seconds) {
    std::unique_lock lock(m_sleepMutex);
    m_wake.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return m_stop.load(); });
    return !m_stop;
}

// Reader thread: the session's whole life, connection after connection.
// The channel is made and let go here, so no gRPC teardown runs on the GUI thread.
void ControlStream::run() {
    connectLoop();
    m_channel.reset();
}

void ControlStream::connectLoop() {
    try {
        m_channel = openControlChannel(m_target);
    } catch (const std::exception &e) {
        m_inbox.notify({Notice::Kind::Failed, e.what()});
        return;
    }
    bool connectedOnce = false;
    Clock::time_point lostAt = Clock::now();
    double backoff = 0.5;
    int attempt = 0;
    while (!m_stop) {
        bool connected = false;
        std::string why;
        const StreamEnd end = watchOnce(connectedOnce, connected, why);
        if (connected) {
            connectedOnce = true;
            backoff = 0.5;
            attempt = 0;
            lostAt = Clock::now();
        }
        switch (end) {
        case StreamEnd::Stopped: return;
        case StreamEnd::Refused: m_inbox.notify({Notice::Kind::Failed, why}); return;
        case StreamEnd::RunOver: m_inbox.notify({Notice::Kind::Ended, why}); return;
        case StreamEnd::Lost: break;
        }
        // Never connected: the address or the center is wrong; say so now
        // rather than retry behind the operator's back.
        if (!connectedOnce) {
            m_inbox.notify({Notice::Kind::Failed, why});
            return;
        }
        if (secondsSince(lostAt) > kGiveUpSeconds) {
            m_inbox.notify({Notice::Kind::Failed, why + "; gave up reconnecting after " +
                                                      std::to_string(int(kGiveUpSeconds)) + " s"});
            return;
        }
        ++attempt;
        m_inbox.notify({Notice::Kind::Reconnecting, "lost the stream: " + why + "; reconnecting in " +
                                                        oneDecimal(backoff) + " s (attempt " +
                                                        std::to_string(attempt) + ")"});
        if (!sleepFor(backoff))
            return;
        backoff = std::min(backoff * 2, 5.0);
    }
}

// One Describe (bounded: the center is there and takes our token), then
// one Watch stream until it ends. Reader thread.
ControlStream::StreamEnd ControlStream::watchOnce(bool reconnect, bool &connected, std::string &why) {
    const auto probe =
        describeCluster(m_channel, m_target.address, std::chrono::milliseconds(kDescribeTimeoutMs), &m_slot);
    if (m_stop)
        return StreamEnd::Stopped;
    if (!probe.ok) {
        why = probe.error;
        return probe.refused ? StreamEnd::Refused : StreamEnd::Lost;
    }

    auto stub = v1::Control::NewStub(m_channel);
    // Every call has a deadline (issue 13 §7); a run outlasting this one
    // costs a reconnect, which skips the history already seen. A dead
    // center is noticed sooner, by keepalive.
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::hours(24));
    if (!m_slot.enter(&context))
        return StreamEnd::Stopped;
    auto reader = stub->Watch(&context, v1::ControlWatchRequest{});
    // The center sends the run's whole history first: skip what we have.
    std::uint64_t skip = m_eventsSeen;
    std::uint64_t received = 0;
    v1::ControlUpdate update;
    bool open = true;
    while (open && reader->Read(&update)) {
        if (!connected) {
            connected = true;
            m_inbox.notify({Notice::Kind::Connected, (reconnect ? "reconnected to the center at " : "connected to the center at ") +
                                                         m_target.address});
        }
        switch (update.update_case()) {
        case v1::ControlUpdate::kEvent: {
            if (++received <= skip)
                break;
            ++m_eventsSeen;
            auto event = session::fromProto(update.event());
            if (!event) // a newer center's kind of event: nothing here can show it
                break;
            if (m_observer)
                m_observer(*event);
            open = m_inbox.pushEvent(std::move(*event));
            break;
        }
        case v1::ControlUpdate::kRouting:
            try {
                auto snapshot = session::fromProto(update.routing());
                if (fitsShape(*snapshot))
                    m_inbox.setRouting(std::move(snapshot));
            } catch (const std::exception &) {
                // A malformed table never reaches the models; the next one will do.
            }
            break;
        case v1::ControlUpdate::kDescription: {
            auto status = toStatus(update.description());
            if (status.runId != m_runId) {
                // Another run than the one shown (the center restarted):
                // its history is all new, and the views start over.
                if (!m_runId.empty())
                    m_inbox.startNewRun();
                m_runId = status.runId;
                m_eventsSeen = 0;
                m_finished = false;
                skip = 0;
                received = 0;
            }
            m_finished = status.finished;
            m_inbox.setStatus(std::move(status));
            break;
        }
        default: break;
        }
    }
    if (!open)
        context.TryCancel(); // the inbox closed: the session is stopping
    const grpc::Status status = reader->Finish();
    m_slot.leave();
    if (m_stop || !open)
        return StreamEnd::Stopped;
    if (isRefusal(status.error_code())) {
        why = callFailure(m_target.address, status);
        return StreamEnd::Refused;
    }
    if (m_finished) {
        why = "the run is over and the center at " + m_target.address + " closed the stream";
        return StreamEnd::RunOver;
    }
    why = status.ok() ? "the center at " + m_target.address + " closed the stream"
                      : callFailure(m_target.address, status);
    return StreamEnd::Lost;
}

bool ControlStream::fitsShape(const engine::RoutingSnapshot &snapshot) const {
    if (snapshot.regionOfEdge != m_regionOfEdge)
        return false;
    const int edges = int(m_regionOfEdge.size());
    for (const auto &row : snapshot.rows)
        for (int owner : row->owner)
            if (owner < -1 || owner >= edges)
                return false;
    return true;
}

} // namespace synaptic::ui
