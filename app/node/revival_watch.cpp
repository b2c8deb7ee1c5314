#include "revival_watch.h"

#include "core/rpc/live/server_setup.h"
#include "core/session/record_codec.h"

#include "synaptic_v1.grpc.pb.h"

#include <chrono>
#include <map>

namespace synaptic::app {

RevivalWatch::RevivalWatch(std::string center, const rpc::SecurityOptions &security)
    : m_center(std::move(center)), m_security(security) {
    m_thread = std::thread([this] { run(); });
}

RevivalWatch::~RevivalWatch() { stop(); }

void RevivalWatch::stop() {
    m_stop = true;
    {
        std::lock_guard lock(m_mutex);
        if (m_active)
            m_active->TryCancel();
    }
    if (m_thread.joinable())
        m_thread.join();
}

std::vector<std::string> RevivalWatch::take() {
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    out.swap(m_names);
    return out;
}

void RevivalWatch::run() {
    const auto security = rpc::loadSecurity(m_security);
    const auto channel = rpc::openChannel(m_center, security, rpc::WireLimits{});
    auto stub = synaptic::v1::Control::NewStub(channel);
    // Every stream starts with the run's whole history: events before
    // `handled` were seen on an earlier stream.
    std::size_t handled = 0;
    while (!m_stop) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::hours(24));
        {
            std::lock_guard lock(m_mutex);
            m_active = &ctx;
        }
        auto reader = stub->Watch(&ctx, synaptic::v1::ControlWatchRequest{});
        std::map<int, std::string> names;
        synaptic::v1::ControlUpdate u;
        std::size_t index = 0;
        while (reader->Read(&u)) {
            if (u.has_description())
                for (const auto &n : u.description().nodes())
                    names[n.node()] = n.name();
            if (!u.has_event())
                continue;
            if (index++ < handled)
                continue;
            handled = index;
            if (!u.event().has_command())
                continue;
            const auto &c = u.event().command();
            const auto cmd = session::fromProto(c.issued());
            if (c.applied() && cmd.kind == engine::SimCommand::Kind::ReviveNode && cmd.node >= 0) {
                std::lock_guard lock(m_mutex);
                if (const auto it = names.find(cmd.node + 1); it != names.end())
                    m_names.push_back(it->second);
            }
        }
        reader->Finish();
        {
            std::lock_guard lock(m_mutex);
            m_active = nullptr;
        }
        if (!m_stop)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

} // namespace synaptic::app
