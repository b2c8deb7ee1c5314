#pragma once

#include <string>

namespace synaptic::rpc {

// How one process secures its gRPC traffic, as given on the command line.
// Every mode checks a bearer token on every call; only the transport differs.
struct SecurityOptions {
    std::string certFile, keyFile;  // this process's certificate and key (PEM): --tls-cert, --tls-key
    std::string caFile;             // CA that signed the peers' certificates (PEM): --tls-ca
    std::string tokenFile;          // bearer token: --token-file
    bool mutualTls = false;         // servers require and verify client certificates: --mtls
    bool insecure = false;          // plaintext, loopback only: --insecure
    std::string serverNameOverride; // clients: expected name in the server's certificate: --tls-server-name
};

// The options with their files read, so that servers and channels built later
// never touch the disk and a bad file is reported once, at start-up.
struct LoadedSecurity {
    SecurityOptions options;
    std::string certPem, keyPem, caPem; // empty where the option named no file
    std::string token;
};

// Reads every file the options name. Throws std::invalid_argument when the
// options contradict each other (no token file, a certificate without its key,
// --mtls with --insecure) and std::runtime_error naming the file when one
// cannot be read, is empty or is not what it should be. In plaintext mode the
// certificate files are not read: nothing would use them.
// Call it from a start-up or worker thread: it does file I/O.
LoadedSecurity loadSecurity(const SecurityOptions &options);

// The bearer token in `path`, without the trailing newline editors and `echo`
// leave. Throws std::runtime_error naming the file when it cannot be read, is
// empty, or holds characters an HTTP/2 header value cannot carry.
std::string readTokenFile(const std::string &path);

// One phrase for logs: "TLS + token", "mutual TLS + token",
// "plaintext (loopback) + token".
std::string describe(const SecurityOptions &options);

} // namespace synaptic::rpc
