#include "channel_security.h"

#include "bearer_token.h"
#include "loopback.h"

#include <grpcpp/create_channel.h>

#include <stdexcept>

namespace synaptic::rpc {

namespace {

// Adds the token to every call of the channel it is composed into. gRPC calls
// GetMetadata on its own threads; the token is immutable, so no lock.
class BearerTokenPlugin final : public grpc::MetadataCredentialsPlugin {
public:
    explicit BearerTokenPlugin(const std::string &token) : m_headerValue(bearerHeaderValue(token)) {}

    bool IsBlocking() const override { return false; }

    grpc::Status GetMetadata(grpc::string_ref, grpc::string_ref, const grpc::AuthContext &,
                             std::multimap<grpc::string, grpc::string> *metadata) override {
        metadata->emplace(std::string(kAuthorizationKey), m_headerValue);
        return grpc::Status::OK;
    }

    grpc::string DebugString() override { return "synaptic bearer token"; } // never the token itself

private:
    const std::string m_headerValue;
};

std::shared_ptr<grpc::ChannelCredentials> transportCredentials(const LoadedSecurity &security,
                                                               const std::string &target) {
    const SecurityOptions &options = security.options;
    if (options.insecure) {
        requireLoopbackForPlaintext(target);
        return grpc::experimental::LocalCredentials(isUnixAddress(target) ? UDS : LOCAL_TCP);
    }
    // Only the cluster's CA: the system roots would let any public
    // certificate for that name impersonate a node.
    if (security.caPem.empty())
        throw std::invalid_argument("a TLS channel to " + target +
                                    " needs --tls-ca, the CA that signed the server's certificate");
    if (options.mutualTls && (security.certPem.empty() || security.keyPem.empty()))
        throw std::invalid_argument("--mtls needs --tls-cert and --tls-key on the client too");
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = security.caPem;
    ssl.pem_private_key = security.keyPem;
    ssl.pem_cert_chain = security.certPem;
    return grpc::SslCredentials(ssl);
}

} // namespace

std::shared_ptr<grpc::ChannelCredentials> makeChannelCredentials(const LoadedSecurity &security,
                                                                 const std::string &target) {
    if (security.token.empty())
        throw std::invalid_argument("a channel to " + target + " needs a bearer token (--token-file)");
    return grpc::CompositeChannelCredentials(
        transportCredentials(security, target),
        grpc::MetadataCredentialsFromPlugin(std::make_unique<BearerTokenPlugin>(security.token)));
}

void applyServerNameOverride(grpc::ChannelArguments &args, const LoadedSecurity &security) {
    if (!security.options.insecure && !security.options.serverNameOverride.empty())
        args.SetSslTargetNameOverride(security.options.serverNameOverride);
}

std::shared_ptr<grpc::Channel> makeChannel(const LoadedSecurity &security, const std::string &target,
                                           grpc::ChannelArguments args) {
    auto credentials = makeChannelCredentials(security, target);
    applyServerNameOverride(args, security);
    return grpc::CreateCustomChannel(target, credentials, args);
}

} // namespace synaptic::rpc
