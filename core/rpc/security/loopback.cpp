#include "loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace synaptic::rpc {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// The host part of "host:port", "[v6]:port", "host" or a bare IPv6 literal.
std::string hostOf(std::string_view hostPort) {
    if (startsWith(hostPort, "[")) {
        const auto close = hostPort.find(']');
        return close == std::string_view::npos ? std::string() : std::string(hostPort.substr(1, close - 1));
    }
    const auto colons = std::count(hostPort.begin(), hostPort.end(), ':');
    if (colons == 1)
        return std::string(hostPort.substr(0, hostPort.find(':')));
    return std::string(hostPort); // no port, or an unbracketed IPv6 literal
}

bool isLoopbackHost(std::string host) {
    std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
    if (host == "localhost" || host == "localhost.")
        return true;
    in_addr v4{};
    if (inet_pton(AF_INET, host.c_str(), &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6{};
    if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
        if (IN6_IS_ADDR_LOOPBACK(&v6))
            return true;
        return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
    }
    return false;
}

// Every entry of a comma-separated ipv4:/ipv6: list.
bool allLoopback(std::string_view list) {
    if (list.empty())
        return false;
    while (true) {
        const auto comma = list.find(',');
        if (!isLoopbackHost(hostOf(list.substr(0, comma))))
            return false;
        if (comma == std::string_view::npos)
            return true;
        list.remove_prefix(comma + 1);
    }
}

} // namespace

bool isUnixAddress(std::string_view address) {
    return startsWith(address, "unix:") || startsWith(address, "unix-abstract:");
}

bool isLoopbackAddress(std::string_view address) {
    if (isUnixAddress(address))
        return true;
    if (startsWith(address, "ipv4:"))
        return allLoopback(address.substr(5));
    if (startsWith(address, "ipv6:"))
        return allLoopback(address.substr(5));
    if (startsWith(address, "dns:")) {
        address.remove_prefix(4);
        // dns://resolver/host:port names a DNS server first; skip it.
        if (startsWith(address, "//")) {
            const auto slash = address.find('/', 2);
            if (slash == std::string_view::npos)
                return false;
            address.remove_prefix(slash + 1);
        }
    }
    return !address.empty() && isLoopbackHost(hostOf(address));
}

void requireLoopbackForPlaintext(const std::string &address) {
    if (!isLoopbackAddress(address))
        throw std::invalid_argument("--insecure (plaintext) is allowed only on loopback addresses, and \"" +
                                    address +
                                    "\" is not one: use 127.0.0.1, localhost, [::1] or unix:, or drop "
                                    "--insecure and use TLS");
}

} // namespace synaptic::rpc
