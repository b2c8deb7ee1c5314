#pragma once

#include <grpcpp/security/auth_metadata_processor.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace synaptic::rpc {

// Checks the bearer token of every call a server receives. It is the server
// credentials' AuthMetadataProcessor, so it runs inside gRPC before a call is
// handed to the application: a rejected call never reaches a handler or an
// interceptor, and its caller gets UNAUTHENTICATED and nothing else.
//
// gRPC calls Process on its own threads, concurrently; the counter is atomic
// and the sink is called under a lock, one line at a time.
//
// Why not a server interceptor: in gRPC 1.51 an interceptor can make the
// client see UNAUTHENTICATED (by cancelling the call) but cannot stop a unary
// callback handler from running with the unauthenticated request. And why the
// log names no IP address: gRPC gives an AuthMetadataProcessor the call's
// metadata and the connection's auth context, not the socket's peer address.
// The line names what identifies the caller there: its client certificate
// under mutual TLS, "a loopback client" in plaintext mode (gRPC's local
// credentials admit loopback peers only).
class TokenGate final : public grpc::AuthMetadataProcessor {
public:
    using LogSink = std::function<void(const std::string &line)>;

    // Throws std::invalid_argument on an empty token.
    explicit TokenGate(std::string token);

    // Where rejection lines go; stderr by default. The sink must not block:
    // it runs on gRPC's threads.
    void setLogSink(LogSink sink);

    // Calls rejected so far.
    std::uint64_t rejectedCalls() const { return m_rejected.load(); }

    // The check is a few comparisons: run it inline, not on gRPC's thread pool.
    bool IsBlocking() const override { return false; }
    grpc::Status Process(const InputMetadata &authMetadata, grpc::AuthContext *context,
                         OutputMetadata *consumedAuthMetadata, OutputMetadata *responseMetadata) override;

private:
    void log(const std::string &line);

    const std::string m_token;
    std::atomic<std::uint64_t> m_rejected{0};
    std::mutex m_sinkMutex;
    LogSink m_sink;
};

} // namespace synaptic::rpc
