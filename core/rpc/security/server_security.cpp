#include "server_security.h"

#include "loopback.h"

#include <grpcpp/security/server_credentials.h>

#include <stdexcept>

namespace synaptic::rpc {

std::shared_ptr<grpc::ServerCredentials> makeServerCredentials(const LoadedSecurity &security,
                                                               const std::string &listenAddress,
                                                               std::shared_ptr<TokenGate> gate) {
    if (!gate)
        throw std::invalid_argument("makeServerCredentials needs a TokenGate");
    const SecurityOptions &options = security.options;
    std::shared_ptr<grpc::ServerCredentials> credentials;
    if (options.insecure) {
        requireLoopbackForPlaintext(listenAddress);
        const grpc_local_connect_type type = isUnixAddress(listenAddress) ? UDS : LOCAL_TCP;
        credentials = grpc::experimental::LocalServerCredentials(type);
    } else {
        if (security.certPem.empty() || security.keyPem.empty())
            throw std::invalid_argument("a TLS server on " + listenAddress +
                                        " needs --tls-cert and --tls-key (or --insecure on a loopback address)");
        if (options.mutualTls && security.caPem.empty())
            throw std::invalid_argument("--mtls needs --tls-ca, the CA that signed the clients' certificates");
        grpc::SslServerCredentialsOptions ssl(options.mutualTls
                                                  ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                                  : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
        ssl.pem_key_cert_pairs.push_back({security.keyPem, security.certPem});
        if (options.mutualTls)
            ssl.pem_root_certs = security.caPem;
        credentials = grpc::SslServerCredentials(ssl);
    }
    credentials->SetAuthMetadataProcessor(std::move(gate));
    return credentials;
}

} // namespace synaptic::rpc
