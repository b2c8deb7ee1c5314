#pragma once

#include <functional>
#include <string>
#include <vector>

namespace synaptic::bench {

// Moving one large transfer between two processes on this machine, both
// ways it can go: the live transport (LiveTransport: reliable Deliver
// calls of synaptic.v1 Handoff messages, split below the message limit,
// decoded by the receiver) and a plain TCP copy of the same number of
// bytes over loopback. Each run forks a receiving child.
struct ThroughputResult {
    double megabytes = 0;           // payload moved per run (tensor bytes)
    std::vector<double> grpcMBps;   // one per repeat
    std::vector<double> tcpMBps;
};

// `before` (optional) is told each run before it starts, outside its timing:
// the repeat (0-based) and "gRPC" or "TCP".
ThroughputResult measureTransportThroughput(const std::string &self, double megabytes, int repeats,
                                            const std::function<void(int, const char *)> &before = {});

// The child side (the bench re-runs itself with these flags).
int runGrpcSink(const std::string &portFile, const std::string &token);
int runTcpSink(const std::string &portFile, long long bytes);

} // namespace synaptic::bench
