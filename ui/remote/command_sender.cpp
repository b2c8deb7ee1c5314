#include "command_sender.h"

#include "remote_call.h"

#include "core/session/record_codec.h"

#include "synaptic_v1.grpc.pb.h"

namespace synaptic::ui {

CommandSender::CommandSender(RemoteTarget target, std::function<void(const std::string &)> onFailure)
    : m_target(std::move(target)), m_onFailure(std::move(onFailure)), m_thread([this] { run(); }) {}

CommandSender::~CommandSender() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_queue.clear();
    }
    m_wake.notify_all();
    m_slot.cancel();
    m_thread.join();
}

void CommandSender::send(const engine::SimCommand &command) {
    {
        std::lock_guard lock(m_mutex);
        if (m_queue.size() >= kMaxQueued) {
            m_onFailure("not sent: " + command.describe() + " (" + std::to_string(kMaxQueued) +
                        " commands are already waiting for the center at " + m_target.address + ")");
            return;
        }
        m_queue.push_back(command);
    }
    m_wake.notify_one();
}

// Worker thread: the channel is made here, where reading the token file may block.
void CommandSender::run() {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Control::Stub> stub;
    while (true) {
        engine::SimCommand command;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            if (m_stop)
                return;
            command = m_queue.front();
            m_queue.pop_front();
        }
        if (!stub) {
            try {
                channel = openControlChannel(m_target);
                stub = v1::Control::NewStub(channel);
            } catch (const std::exception &e) {
                m_onFailure("not sent: " + command.describe() + ": " + e.what());
                continue;
            }
        }
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(kDeadlineMs));
        v1::SubmitReply reply;
        if (!m_slot.enter(&context))
            return;
        const grpc::Status status = stub->Submit(&context, session::toProto(command), &reply);
        m_slot.leave();
        if (!status.ok())
            m_onFailure("not sent: " + command.describe() + ": " + callFailure(m_target.address, status));
        else if (!reply.accepted())
            m_onFailure("the center at " + m_target.address + " refused " + command.describe() +
                        (reply.detail().empty() ? std::string() : ": " + reply.detail()));
    }
}

} // namespace synaptic::ui
