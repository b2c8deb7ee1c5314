#pragma once

#include "security_options.h"

#include <grpcpp/channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <memory>
#include <string>

namespace synaptic::rpc {

// Credentials for a channel to `target` that send the bearer token on every
// call: TLS trusting only --tls-ca (presenting --tls-cert/--tls-key when
// given, as --mtls servers require), or, with --insecure, plaintext through
// gRPC's local credentials. gRPC refuses call credentials on plain
// InsecureChannelCredentials (the call fails with INVALID_ARGUMENT); local
// credentials carry them, so callers never add the token by hand.
// Throws std::invalid_argument when --insecure meets a non-loopback target,
// when TLS has no CA, or --mtls has no client certificate and key.
std::shared_ptr<grpc::ChannelCredentials> makeChannelCredentials(const LoadedSecurity &security,
                                                                 const std::string &target);

// Sets the name expected in the server's certificate (--tls-server-name), for
// servers reached by an address their certificate does not list. No-op in
// plaintext mode or without an override.
void applyServerNameOverride(grpc::ChannelArguments &args, const LoadedSecurity &security);

// A channel to `target` with both of the above; `args` carries the caller's
// other settings (keepalive and the like).
std::shared_ptr<grpc::Channel> makeChannel(const LoadedSecurity &security, const std::string &target,
                                           grpc::ChannelArguments args = {});

} // namespace synaptic::rpc
