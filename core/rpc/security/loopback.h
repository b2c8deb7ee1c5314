#pragma once

#include <string>
#include <string_view>

namespace synaptic::rpc {

// Whether a listen or target address reaches only this host: 127.0.0.0/8,
// ::1 (also as ::ffff:127.x.y.z), "localhost", and unix: / unix-abstract:
// sockets. Accepts "host:port", "[v6]:port", and gRPC's dns:, ipv4: and
// ipv6: URI forms (every address of an ipv4:/ipv6: list must be loopback).
// Wildcards (0.0.0.0, [::]) and every other name are not loopback: a name
// could resolve anywhere.
bool isLoopbackAddress(std::string_view address);

// Whether gRPC treats `address` as a local socket rather than TCP.
bool isUnixAddress(std::string_view address);

// Throws std::invalid_argument, naming the address and --insecure, unless
// `address` is loopback. Plaintext never leaves the host.
void requireLoopbackForPlaintext(const std::string &address);

} // namespace synaptic::rpc
