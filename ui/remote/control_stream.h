#pragma once

#include "cancel_slot.h"
#include "remote_target.h"

#include "core/engine/sim/sim_events.h"
#include "core/engine/synapse/routing_table.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace grpc {
class Channel;
}

namespace synaptic::ui {

class RemoteInbox;

// The reader thread of a remote cluster (issue 13 §5): Describe (bounded by
// a deadline: is the center there, does it take our token?), then the
// Control service's Watch stream, each update converted to engine values
// and handed to the inbox; never touches a QObject.
//
// A stream that drops is opened again with backoff (0.5 s doubling to 5 s)
// for up to kGiveUpSeconds. The center replays a run's whole history to
// every new watcher, so the reader skips as many events as it already has
// when the run is the same (same run id), and starts over (inbox reset)
// when the center runs another one. A center that cannot be reached at
// first, or refuses the token at any time, ends the session with a Failed
// notice naming the address and the gRPC status.
class ControlStream {
public:
    // `regionOfEdge`: the window's cluster shape; a routing table of another
    // shape is refused rather than handed to the models. `observer` (may be
    // empty) sees every event once, on this thread, before the inbox does:
    // the recorder, which must see what the GUI may coalesce.
    ControlStream(RemoteTarget target, std::vector<int> regionOfEdge, RemoteInbox &inbox,
                  std::function<void(const engine::SimEvent &)> observer);
    ~ControlStream(); // stop()

    void start(); // GUI thread
    // Cancels the call in flight and joins the thread. GUI thread; returns
    // promptly (TryCancel does not wait for the network).
    void stop();

    static constexpr double kGiveUpSeconds = 60;
    static constexpr int kDescribeTimeoutMs = 5000;

private:
    enum class StreamEnd { Stopped, Lost, Refused, RunOver };
    void run();
    void connectLoop();
    StreamEnd watchOnce(bool reconnect, bool &connected, std::string &why);
    bool fitsShape(const engine::RoutingSnapshot &snapshot) const;
    bool sleepFor(double seconds); // false when stopped meanwhile

    const RemoteTarget m_target;
    const std::vector<int> m_regionOfEdge;
    RemoteInbox &m_inbox;
    const std::function<void(const engine::SimEvent &)> m_observer;
    std::thread m_thread;
    CancelSlot m_slot;
    std::mutex m_sleepMutex;
    std::condition_variable m_wake;
    std::atomic<bool> m_stop{false};

    // Reader thread only.
    std::shared_ptr<grpc::Channel> m_channel;
    std::string m_runId;             // of the run whose events the inbox has
    std::uint64_t m_eventsSeen = 0;  // events of that run received so far
    bool m_finished = false;         // the center said the run is over
};

} // namespace synaptic::ui
