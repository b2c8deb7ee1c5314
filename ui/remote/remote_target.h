#pragma once

#include "core/rpc/security/security_options.h"

#include <string>

namespace synaptic::ui {

// Where a remote cluster's center listens and how to reach it: the same
// flags synaptic-node takes (--token-file, --tls-ca, --tls-cert, --tls-key,
// --tls-server-name, --insecure). Plain data: copied into every thread
// that talks to the center; the files are read there, never on the GUI thread.
struct RemoteTarget {
    std::string address; // host:port of the center's Control service
    rpc::SecurityOptions security;
};

} // namespace synaptic::ui
