#include "peer_stream.h"

#include <chrono>

namespace synaptic::rpc {

PeerStream::PeerStream(v1::Peer::Stub &stub, const std::function<void(grpc::ClientContext &)> &prepare,
                       double deadlineSeconds) {
    if (prepare)
        prepare(m_context);
    m_context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::milliseconds(std::int64_t(deadlineSeconds * 1000)));
    stub.async()->Stream(&m_context, &m_summary, this);
    // Keep the call open between writes; StartCall once everything is set.
    AddHold();
    StartCall();
}

// gRPC may run a reaction inline, inside the call that started it (the
// callback API flushes completions when the call returns): never hold the
// mutex while calling StartWrite, or OnWriteDone deadlocks on it.
bool PeerStream::enqueue(v1::NodeMessage message) {
    const v1::NodeMessage *first = nullptr;
    {
        std::lock_guard lock(m_mutex);
        if (m_broken || m_done)
            return false;
        m_queue.push_back(std::move(message));
        if (!m_writing) {
            m_writing = true;
            first = &m_queue.front(); // stable: only OnWriteDone pops, after this write
        }
    }
    if (first)
        StartWrite(first);
    return true;
}

void PeerStream::OnWriteDone(bool ok) {
    const v1::NodeMessage *next = nullptr;
    {
        std::lock_guard lock(m_mutex);
        if (!ok) {
            m_broken = true;
            m_writing = false;
            return;
        }
        m_queue.pop_front();
        if (m_queue.empty()) {
            m_writing = false;
            return;
        }
        next = &m_queue.front();
    }
    StartWrite(next);
}

void PeerStream::OnDone(const grpc::Status &) {
    std::lock_guard lock(m_mutex);
    m_broken = true;
    m_done = true;
    m_doneSignal.notify_all();
}

bool PeerStream::broken() const {
    std::lock_guard lock(m_mutex);
    return m_broken;
}

bool PeerStream::done() const {
    std::lock_guard lock(m_mutex);
    return m_done;
}

std::size_t PeerStream::queued() const {
    std::lock_guard lock(m_mutex);
    return m_queue.size();
}

void PeerStream::close() {
    {
        std::lock_guard lock(m_mutex);
        m_broken = true;
    }
    m_context.TryCancel();
    RemoveHold();
    std::unique_lock lock(m_mutex);
    m_doneSignal.wait_for(lock, std::chrono::seconds(5), [this] { return m_done; });
}

} // namespace synaptic::rpc
