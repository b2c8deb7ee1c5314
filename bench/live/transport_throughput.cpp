#include "transport_throughput.h"

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/node_context.h"
#include "core/rpc/live/cluster_clock.h"
#include "core/rpc/live/live_transport.h"
#include "core/rpc/live/server_setup.h"
#include "core/rpc/security/token_gate.h"
#include "core/rpc/wire/message_codec.h"

#include "synaptic_v1.grpc.pb.h"

#include <ATen/ATen.h>
#include <grpcpp/grpcpp.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace synaptic::bench {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kShards = 64;

std::string tempFile(const char *name) { return "/tmp/synaptic-bench-live-" + std::to_string(getpid()) + "-" + name; }

int readPort(const std::string &path) {
    for (int i = 0; i < 600; ++i) {
        std::ifstream in(path);
        int port = 0;
        if (in >> port && port > 0)
            return port;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error("the receiving process did not start (no port in " + path + ")");
}

pid_t spawn(const std::string &self, const std::vector<std::string> &args) {
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        // The sink dies with the bench, even if the bench is killed.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        std::vector<char *> argv{const_cast<char *>(self.c_str())};
        for (const auto &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execv(self.c_str(), argv.data());
        _exit(127);
    }
    return pid;
}

// A Peer service that decodes what arrives (as a node would) and keeps nothing.
class Sink final : public v1::Peer::CallbackService {
public:
    grpc::ServerUnaryReactor *Deliver(grpc::CallbackServerContext *context, const v1::NodeMessage *request,
                                      v1::DeliverReply *) override {
        auto *reactor = context->DefaultReactor();
        const auto m = rpc::fromProto(*request);
        m_items += m.shards.size();
        reactor->Finish(grpc::Status::OK);
        return reactor;
    }
    std::atomic<std::uint64_t> m_items{0};
};

double grpcRun(const std::string &self, double megabytes) {
    const std::string portFile = tempFile("grpc-port"), tokenFile = tempFile("token");
    std::remove(portFile.c_str());
    std::ofstream(tokenFile) << "bench-live-token\n";
    const pid_t child = spawn(self, {"--grpc-sink", portFile, tokenFile});
    const int port = readPort(portFile);
    rpc::SecurityOptions so;
    so.insecure = true;
    so.tokenFile = tokenFile;
    const auto security = rpc::loadSecurity(so);
    const std::string address = "127.0.0.1:" + std::to_string(port);

    // Two nodes of a one-edge cluster: this process is the edge, the sink its peer.
    engine::ClusterConfig config;
    config.regions.push_back({"r", {{"a", 100}, {"b", 100}}});
    const engine::ClusterShape shape(config);
    rpc::ClusterClock clock;
    rpc::LiveTransport::Channels channels;
    channels.open = [&](const std::string &t) { return rpc::openChannel(t, security, rpc::WireLimits{}); };
    rpc::LiveTransport::Options o;
    o.emulateLinks = false;
    rpc::LiveTransport transport(1, config, shape, clock, channels, o);
    transport.setPeer(2, address, true);

    // The payload: 64 shards of fp32 values; a handoff carries each shard's
    // values only (no optimizer state) so the bytes are the payload's.
    const auto perShard = std::int64_t(megabytes * 1e6 / 4 / kShards);
    engine::Message m;
    m.kind = engine::MessageKind::Handoff;
    m.to = 2;
    for (int s = 0; s < kShards; ++s) {
        engine::ShardItem item;
        item.shard = s;
        item.data = at::rand({perShard});
        m.shards.push_back(std::move(item));
    }
    // Warm the connection up first (channel, TLS-less handshake, stream).
    engine::Message ping = m;
    ping.shards.resize(1);
    transport.send(ping);
    transport.drain(30);
    const auto t0 = Clock::now();
    transport.send(m);
    if (!transport.drain(300))
        throw std::runtime_error("the gRPC transfer did not finish in 300 s");
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    transport.stop();
    kill(child, SIGTERM);
    waitpid(child, nullptr, 0);
    std::remove(portFile.c_str());
    std::remove(tokenFile.c_str());
    return double(perShard) * kShards * 4 / 1e6 / seconds;
}

double tcpRun(const std::string &self, double megabytes) {
    const std::string portFile = tempFile("tcp-port");
    std::remove(portFile.c_str());
    const auto bytes = (long long)(std::int64_t(megabytes * 1e6 / 4 / kShards) * kShards * 4);
    const pid_t child = spawn(self, {"--tcp-sink", portFile, std::to_string(bytes)});
    const int port = readPort(portFile);
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(std::uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
        throw std::runtime_error("cannot connect to the TCP sink");
    std::vector<char> buffer(4 << 20, 'x');
    const auto t0 = Clock::now();
    long long left = bytes;
    while (left > 0) {
        const auto n = write(fd, buffer.data(), std::size_t(std::min<long long>(left, (long long)buffer.size())));
        if (n <= 0)
            throw std::runtime_error("TCP write failed");
        left -= n;
    }
    char ack = 0;
    if (read(fd, &ack, 1) != 1) // the sink read everything
        throw std::runtime_error("no acknowledgement from the TCP sink");
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    close(fd);
    waitpid(child, nullptr, 0);
    std::remove(portFile.c_str());
    return double(bytes) / 1e6 / seconds;
}

} // namespace

int runGrpcSink(const std::string &portFile, const std::string &tokenFile) {
    rpc::SecurityOptions so;
    so.insecure = true;
    so.tokenFile = tokenFile;
    const auto security = rpc::loadSecurity(so);
    Sink sink;
    int port = 0;
    auto server = rpc::buildServer("127.0.0.1:0", {&sink}, security, std::make_shared<rpc::TokenGate>(security.token),
                                   rpc::WireLimits{}, port);
    std::ofstream(portFile) << port << "\n";
    server->Wait(); // until SIGTERM ends the process
    return 0;
}

int runTcpSink(const std::string &portFile, long long bytes) {
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
        return 1;
    std::ofstream(portFile) << ntohs(addr.sin_port) << "\n";
    const int fd = accept(listener, nullptr, nullptr);
    std::vector<char> buffer(4 << 20);
    long long got = 0;
    while (got < bytes) {
        const auto n = read(fd, buffer.data(), buffer.size());
        if (n <= 0)
            return 1;
        got += n;
    }
    const char ack = 1;
    return write(fd, &ack, 1) == 1 ? 0 : 1;
}

ThroughputResult measureTransportThroughput(const std::string &self, double megabytes, int repeats,
                                            const std::function<void(int, const char *)> &before) {
    ThroughputResult r;
    r.megabytes = megabytes;
    // Alternating pairs: the VM's speed drifts; a pair shares its moment.
    for (int i = 0; i < repeats; ++i) {
        if (before)
            before(i, "gRPC");
        r.grpcMBps.push_back(grpcRun(self, megabytes));
        if (before)
            before(i, "TCP");
        r.tcpMBps.push_back(tcpRun(self, megabytes));
    }
    return r;
}

} // namespace synaptic::bench
