#pragma once

#include <grpcpp/client_context.h>

#include <mutex>

namespace synaptic::ui {

// The gRPC call a worker thread is in, so that another thread can cut it
// short (stop, window closing) instead of waiting for its deadline.
// enter()/leave() from the worker around each call; cancel() from any
// thread, once: every later enter() refuses, so nothing starts after it.
class CancelSlot {
public:
    // False when cancel() came first: do not make the call.
    bool enter(grpc::ClientContext *context) {
        std::lock_guard lock(m_mutex);
        if (m_cancelled)
            return false;
        m_context = context;
        return true;
    }
    void leave() {
        std::lock_guard lock(m_mutex);
        m_context = nullptr;
    }
    // TryCancel() only flags the call; it never blocks.
    void cancel() {
        std::lock_guard lock(m_mutex);
        m_cancelled = true;
        if (m_context)
            m_context->TryCancel();
    }
    bool cancelled() const {
        std::lock_guard lock(m_mutex);
        return m_cancelled;
    }

private:
    mutable std::mutex m_mutex;
    grpc::ClientContext *m_context = nullptr;
    bool m_cancelled = false;
};

} // namespace synaptic::ui
