#pragma once

#include "security_options.h"
#include "token_gate.h"

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

namespace synaptic::rpc {

// Credentials for one listening port, with `gate` checking every call's token:
//   TLS (+ client certificates verified against the CA under --mtls), or, with
//   --insecure, plaintext through gRPC's local credentials, which accept
//   loopback peers only and, unlike InsecureServerCredentials, still run the
//   gate before any handler.
// Throws std::invalid_argument when --insecure meets a non-loopback address,
// when a TLS server has no certificate and key, or --mtls has no CA.
// Use: builder.AddListeningPort(address, makeServerCredentials(s, address, gate), &port);
// keep `gate` to read its rejection count.
std::shared_ptr<grpc::ServerCredentials> makeServerCredentials(const LoadedSecurity &security,
                                                               const std::string &listenAddress,
                                                               std::shared_ptr<TokenGate> gate);

} // namespace synaptic::rpc
