#pragma once

#include "core/rpc/security/security_options.h"

#include <cstdint>
#include <string>

namespace synaptic::rpc {

// What every live node process is told on its command line.
struct ProcessOptions {
    SecurityOptions security;
    bool emulateLinks = true;         // --no-link-emulation: real WAN links already have their latency
    std::string device = "cpu";
    int threads = 0;                  // LibTorch's and OpenBLAS's intra-op threads; 0 = the libraries' defaults
    std::string dataDir;              // overrides the config's (Fashion-MNIST files)
    // Where edges keep their shards' durable state (DIR/node-N/state.bin,
    // issue 15; a hub's in DIR/node-N/hub-state.bin): an edge process
    // restarted over it reloads its shards, versions and sync bookkeeping.
    // Empty: none (a restart starts over); an edge hosting a hub needs one.
    std::string stateDir;
    std::size_t maxMessageBytes = 4u << 20;
};

// synaptic-node center --listen ADDR --config FILE
struct CenterOptions {
    ProcessOptions process;
    std::string listen = "127.0.0.1:0";
    std::string configPath;
    std::uint64_t stepsPerEdge = 0;       // 0: train until stopped
    std::uint64_t evalEverySamples = 7680; // an evaluation of the global model every so many samples
    std::string reportPath;               // JSON report when the run finishes
    bool exitWhenDone = false;            // leave once every edge used its budget and the final check ran
    double startTimeoutSeconds = 30;      // the run starts when every edge joined, or this long after the first
};

// synaptic-node edge --center ADDR --name NAME
struct EdgeOptions {
    ProcessOptions process;
    std::string center;                // the center's address
    std::string name;                  // the edge's name in the center's config
    std::string listen = "127.0.0.1:0"; // where this edge's Peer service listens
    std::string advertise;             // the address peers use to reach it (default: the bound listen address)
    double joinTimeoutSeconds = 60;    // keep trying to join this long
};

} // namespace synaptic::rpc
