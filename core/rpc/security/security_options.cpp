#include "security_options.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace synaptic::rpc {

namespace {

std::string readWholeFile(const std::string &path, const std::string &what) {
    // A directory opens fine as an ifstream on Linux and then reads as empty,
    // which would be reported as an empty file: say what it really is.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw std::runtime_error("cannot read " + what + " " + path + ": it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + what + " " + path + ": no such file or no permission");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        throw std::runtime_error("cannot read " + what + " " + path);
    return text;
}

std::string readPem(const std::string &path, const std::string &what) {
    if (path.empty())
        return {};
    std::string pem = readWholeFile(path, what);
    // gRPC reports a non-PEM file only as a failed handshake or a server that
    // will not start; catching it here names the file.
    if (pem.find("-----BEGIN ") == std::string::npos)
        throw std::runtime_error(what + " " + path + " is not a PEM file");
    return pem;
}

} // namespace

std::string readTokenFile(const std::string &path) {
    std::string token = readWholeFile(path, "token file");
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r'))
        token.pop_back();
    if (token.empty())
        throw std::runtime_error("token file " + path + " is empty");
    for (const char c : token) {
        // Visible ASCII only: anything else is refused by gRPC as a header
        // value at call time, far from the cause.
        if (c < 0x21 || c > 0x7e)
            throw std::runtime_error("token file " + path +
                                     " holds a space, control or non-ASCII character; a token must be "
                                     "visible ASCII on one line");
    }
    return token;
}

LoadedSecurity loadSecurity(const SecurityOptions &options) {
    if (options.tokenFile.empty())
        throw std::invalid_argument("no bearer token: every mode needs --token-file FILE");
    if (options.mutualTls && options.insecure)
        throw std::invalid_argument("--mtls and --insecure exclude each other");
    if (options.certFile.empty() != options.keyFile.empty())
        throw std::invalid_argument("--tls-cert and --tls-key go together: give both or neither");

    LoadedSecurity loaded;
    loaded.options = options;
    loaded.token = readTokenFile(options.tokenFile);
    if (!options.insecure) {
        loaded.certPem = readPem(options.certFile, "certificate file");
        loaded.keyPem = readPem(options.keyFile, "key file");
        loaded.caPem = readPem(options.caFile, "CA file");
    }
    return loaded;
}

std::string describe(const SecurityOptions &options) {
    if (options.insecure)
        return "plaintext (loopback) + token";
    return options.mutualTls ? "mutual TLS + token" : "TLS + token";
}

} // namespace synaptic::rpc
