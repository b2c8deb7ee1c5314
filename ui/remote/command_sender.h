#pragma once

#include "cancel_slot.h"
#include "remote_target.h"

#include "core/engine/sim/sim_command.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace synaptic::ui {

// Sends a remote cluster's commands (Control.Submit) from a worker thread of
// its own, one at a time and in order, each with a deadline: the GUI thread
// only queues them (issue 13 §5). The outcome of a command that arrives
// comes back through the event stream as a CommandEvent, like the embedded
// engine's; one that does not arrive (center unreachable, deadline, refused
// before it was queued) is reported through `onFailure`, on the worker thread.
class CommandSender {
public:
    CommandSender(RemoteTarget target, std::function<void(const std::string &)> onFailure);
    ~CommandSender(); // commands still queued are not sent

    void send(const engine::SimCommand &command); // GUI thread; never blocks

    static constexpr int kDeadlineMs = 5000;
    static constexpr std::size_t kMaxQueued = 1000; // beyond this the operator is told, not queued

private:
    void run();

    const RemoteTarget m_target;
    const std::function<void(const std::string &)> m_onFailure;
    CancelSlot m_slot;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<engine::SimCommand> m_queue; // guarded by m_mutex
    bool m_stop = false;                    // guarded by m_mutex
    std::thread m_thread;
};

} // namespace synaptic::ui
