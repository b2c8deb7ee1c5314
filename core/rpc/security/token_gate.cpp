#include "token_gate.h"

#include "bearer_token.h"

#include <iostream>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace synaptic::rpc {

namespace {

std::string_view view(grpc::string_ref ref) { return {ref.data(), ref.size()}; }

std::optional<std::string_view> findValue(const grpc::AuthMetadataProcessor::InputMetadata &metadata,
                                          std::string_view key) {
    const auto it = metadata.find(grpc::string_ref(key.data(), key.size()));
    if (it == metadata.end())
        return std::nullopt;
    return view(it->second);
}

std::string firstProperty(const grpc::AuthContext &context, const char *name) {
    const auto values = context.FindPropertyValues(name);
    return values.empty() ? std::string() : std::string(view(values.front()));
}

// Who is calling, as far as the connection's auth context tells.
std::string describePeer(const grpc::AuthContext *context) {
    if (!context)
        return "an unknown client";
    const std::string subject = firstProperty(*context, "x509_subject");
    if (!subject.empty())
        return "client certificate \"" + subject + "\"";
    if (firstProperty(*context, "transport_security_type") == "local")
        return "a loopback client";
    return "a TLS client without a certificate";
}

} // namespace

TokenGate::TokenGate(std::string token) : m_token(std::move(token)) {
    if (m_token.empty())
        throw std::invalid_argument("TokenGate needs a non-empty token");
    m_sink = [](const std::string &line) { std::cerr << line + '\n'; };
}

void TokenGate::setLogSink(LogSink sink) {
    const std::lock_guard lock(m_sinkMutex);
    m_sink = std::move(sink);
}

grpc::Status TokenGate::Process(const InputMetadata &authMetadata, grpc::AuthContext *context,
                                OutputMetadata *consumedAuthMetadata, OutputMetadata *) {
    const auto header = findValue(authMetadata, kAuthorizationKey);
    const TokenVerdict verdict = judgeAuthorization(header, m_token);
    if (verdict == TokenVerdict::Valid) {
        // Handlers have no use for the secret; keep it out of their metadata.
        consumedAuthMetadata->emplace(std::string(kAuthorizationKey), std::string(*header));
        return grpc::Status::OK;
    }
    ++m_rejected;
    const std::string method = std::string(findValue(authMetadata, ":path").value_or("an unknown method"));
    log("rpc security: rejected " + method + " from " + describePeer(context) + ": " +
        std::string(reasonText(verdict)));
    // One message for both reasons: the caller learns nothing about which.
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "missing or wrong bearer token");
}

void TokenGate::log(const std::string &line) {
    const std::lock_guard lock(m_sinkMutex);
    if (m_sink)
        m_sink(line);
}

} // namespace synaptic::rpc
