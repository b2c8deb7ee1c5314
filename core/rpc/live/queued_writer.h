#pragma once

#include <grpcpp/grpcpp.h>

#include <deque>
#include <functional>
#include <mutex>
#include <optional>

namespace synaptic::rpc {

// A server stream fed from any thread (callback API): push() queues a
// message and starts the next write when none is in flight; gRPC calls
// OnWriteDone/OnCancel/OnDone on its threads. A writer that falls more
// than `maxQueued` messages behind is finished with RESOURCE_EXHAUSTED
// instead of growing without bound. gRPC may run a reaction inline inside
// StartWrite or Finish, so neither is called with the mutex held, and
// OnDone (which may thus run inside a push() made under its owner's lock)
// does nothing but mark the stream over and call `onEnd`, which must not
// block: with an `onEnd`, the owner deletes the writer later, when nobody
// can be pushing to it; without one, it deletes itself.
template <typename Message>
class QueuedWriter : public grpc::ServerWriteReactor<Message> {
public:
    explicit QueuedWriter(std::size_t maxQueued = 1u << 20) : m_maxQueued(maxQueued) {}

    void setOnEnd(std::function<void()> onEnd) {
        std::lock_guard lock(m_mutex);
        m_onEnd = std::move(onEnd);
    }

    // False when the stream is over.
    bool push(Message message) {
        Step step;
        {
            std::lock_guard lock(m_mutex);
            if (m_over)
                return false;
            if (m_queue.size() >= m_maxQueued) {
                step = endLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the watcher fell too far behind"));
            } else {
                m_queue.push_back(std::move(message));
                if (!m_writing) {
                    m_writing = true;
                    step.write = &m_queue.front();
                }
            }
        }
        run(step);
        return !step.finish;
    }

    void finish(const grpc::Status &status) {
        Step step;
        {
            std::lock_guard lock(m_mutex);
            if (m_over)
                return;
            step = endLocked(status);
        }
        run(step);
    }

    void OnWriteDone(bool ok) override {
        Step step;
        {
            std::lock_guard lock(m_mutex);
            m_queue.pop_front();
            m_writing = false;
            // A finish that waited for this write goes out whether or not the
            // write got through (a cancelled stream fails it): without a
            // Finish, OnDone never comes and the server cannot shut down.
            if (m_finishPending) {
                step.finish = m_finishStatus;
                m_finishPending = false;
            } else if (!ok) {
                if (!m_over)
                    step = endLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "write failed"));
            } else if (!m_queue.empty() && !m_over) {
                m_writing = true;
                step.write = &m_queue.front();
            }
        }
        run(step);
    }

    void OnCancel() override { finish(grpc::Status::CANCELLED); }

    void OnDone() override {
        std::function<void()> onEnd;
        {
            std::lock_guard lock(m_mutex);
            m_over = true;
            m_writing = false;
            onEnd = std::move(m_onEnd);
        }
        if (onEnd)
            onEnd();
        else
            delete this;
    }

private:
    struct Step {
        const Message *write = nullptr;
        std::optional<grpc::Status> finish;
    };
    // Mutex held. Finish now, or after the write in flight.
    Step endLocked(const grpc::Status &status) {
        m_over = true;
        Step step;
        if (m_writing) {
            m_finishPending = true;
            m_finishStatus = status;
        } else {
            step.finish = status;
        }
        return step;
    }
    void run(const Step &step) {
        if (step.write)
            this->StartWrite(step.write);
        if (step.finish)
            this->Finish(*step.finish);
    }

    const std::size_t m_maxQueued;
    std::mutex m_mutex;
    std::deque<Message> m_queue; // front() is being written while m_writing
    bool m_writing = false;
    bool m_over = false;
    bool m_finishPending = false;
    grpc::Status m_finishStatus;
    std::function<void()> m_onEnd;
};

} // namespace synaptic::rpc
