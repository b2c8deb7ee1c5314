#include "live_serving.h"

#include "serving_report.h"
#include "serving_sim.h"

#include "core/engine/sim/event_loop.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/sim_world.h"

#include <cmath>
#include <memory>
#include <limits>

namespace synaptic::engine {

namespace {
constexpr double kShipRetrySeconds = 0.5; // a down link is retried, as the center's reliable channel does
bool isEdgeTensor(const std::string &name) {
    for (const char *prefix : {"conv1.", "bn1.", "squeeze.", "squeeze_bn.", "exit_head."})
        if (name.rfind(prefix, 0) == 0)
            return true;
    return false;
}
} // namespace

std::uint64_t edgeImageBytes(SynapticNet &model) {
    std::uint64_t values = 0;
    for (const auto &p : model->named_parameters())
        if (isEdgeTensor(p.key()))
            values += std::uint64_t(p.value().numel());
    for (const auto &b : model->named_buffers())
        if (isEdgeTensor(b.key()) && b.value().is_floating_point())
            values += std::uint64_t(b.value().numel());
    return values * 4;
}

LiveServing::LiveServing(Env env, Options options, const TensorSet &pool)
    : m_env(std::move(env)), m_options(options), m_pool(pool) {
    m_edgeVersion.assign(std::size_t(m_options.edges), 0);
    m_retrying.assign(std::size_t(m_options.edges), false);
    m_suspect.assign(std::size_t(m_options.edges), false);
    for (auto *counts : {&m_arrived, &m_answered, &m_abandoned, &m_pending})
        counts->assign(std::size_t(m_options.edges), 0);
    m_probing.assign(std::size_t(m_options.edges), false);
    for (int e = 0; e < m_options.edges; ++e)
        m_rng.emplace_back(m_options.seed * 0x2545F4914F6CDD1Dull + std::uint64_t(e) + 17);
    m_interval.p50Ms = m_interval.p95Ms = m_interval.p99Ms = std::numeric_limits<double>::quiet_NaN();
}

LiveServing::~LiveServing() = default;

double LiveServing::now() const { return m_env.loop->now(); }

void LiveServing::start(SynapticNet &initial) {
    m_imageBytes = engine::edgeImageBytes(initial);
    release(initial);
    // Release 0 is what every edge starts with (it cached the initial model).
    for (auto &v : m_edgeVersion)
        v = 0;
    for (int e = 0; e < m_options.edges; ++e)
        scheduleArrival(e, 0);
}

bool LiveServing::onCenterSync() {
    if (++m_syncsSinceRelease < std::max(1, m_options.releaseEverySyncs))
        return false;
    m_syncsSinceRelease = 0;
    return true;
}

void LiveServing::release(SynapticNet &global) {
    const std::uint64_t version = m_releases.size();
    m_releases.push_back(std::make_unique<SplitPredictions>(predictSplit(global, m_pool, m_options.measure)));
    const auto &answers = *m_releases.back();
    EdgeImageEvent released;
    released.time = now();
    released.edge = -1;
    released.version = version;
    released.bytes = m_imageBytes;
    for (const auto &p : thresholdSweep(answers, 0, answers.size() / 2, defaultSweepThresholds())) {
        released.sweepThreshold.push_back(p.threshold);
        released.sweepEdgeShare.push_back(p.edgeShare);
        released.sweepAccuracy.push_back(p.accuracy);
    }
    m_env.emit(std::move(released));
    if (version == 0)
        return; // the edges start with it
    for (int e = 0; e < m_options.edges; ++e)
        ship(e, version);
}

void LiveServing::ship(int edge, std::uint64_t version) {
    const int node = SimWorld::nodeOfEdge(edge);
    const auto arrival = m_env.alive(kCenterNode) ? m_env.send(kCenterNode, node, m_imageBytes) : std::nullopt;
    if (!arrival) {
        // One retry chain per edge, and it ships the newest image when it
        // fires: releases made while the edge was cut off are not sent one
        // after another once it is back.
        if (m_retrying[std::size_t(edge)])
            return;
        m_retrying[std::size_t(edge)] = true;
        m_env.loop->after(kShipRetrySeconds, [this, edge] {
            m_retrying[std::size_t(edge)] = false;
            const std::uint64_t newest = m_releases.size() - 1;
            if (m_edgeVersion[std::size_t(edge)] < newest)
                ship(edge, newest);
        });
        return;
    }
    m_env.loop->at(*arrival, [this, edge, version] {
        if (m_edgeVersion[std::size_t(edge)] >= version)
            return; // a newer image overtook this one
        m_edgeVersion[std::size_t(edge)] = version;
        m_env.emit(EdgeImageEvent{now(), edge, version, m_imageBytes, {}, {}, {}});
    });
}

void LiveServing::scheduleArrival(int edge, double after) {
    if (!(m_options.ratePerEdge > 0))
        return;
    std::exponential_distribution<double> gap(m_options.ratePerEdge);
    const double at = now() + after + gap(m_rng[std::size_t(edge)]);
    if (std::isfinite(at))
        m_env.loop->at(at, [this, edge] { arrive(edge); });
}

void LiveServing::abandon(int edge) {
    ++m_abandoned[std::size_t(edge)];
    --m_pending[std::size_t(edge)];
}

void LiveServing::answer(int edge, double latency, bool atEdge, bool degraded, bool correct) {
    ++m_answered[std::size_t(edge)];
    --m_pending[std::size_t(edge)];
    ++m_interval.requests;
    m_interval.atEdge += atEdge;
    m_interval.degraded += degraded;
    m_interval.rawInputBytes += ServingWire::kRawImageBytes;
    if (atEdge)
        m_interval.correctEdge += correct;
    else
        m_interval.correctCenter += correct;
    m_latenciesMs.push_back(latency * 1000.0);
}

void LiveServing::arrive(int edge) {
    scheduleArrival(edge, 0);
    const int node = SimWorld::nodeOfEdge(edge);
    if (!m_env.alive(node))
        return; // a dead edge serves nobody; its clients go elsewhere
    ++m_arrived[std::size_t(edge)];
    ++m_pending[std::size_t(edge)];
    const double arrival = now();
    const std::int64_t half = m_pool.size() / 2;
    const auto image = std::size_t(half + std::int64_t(m_rng[std::size_t(edge)]() % std::uint64_t(m_pool.size() - half)));
    const std::uint64_t version = m_edgeVersion[std::size_t(edge)];
    // The edge half queues on the edge's compute with its training.
    const double done = m_env.occupy(node, m_options.edgeRequestSeconds +
                                               m_env.computeSeconds(node, 2.0 * double(SynapticNetImpl::edgeMacsPerSample())));
    m_env.loop->at(done, [this, edge, node, arrival, image, version] {
        if (m_env.alive(node)) // killed while computing: the request dies with the process
            decide(edge, arrival, image, version);
        else
            abandon(edge);
    });
}

// The edge half is done: answer, or forward unless the center is suspect.
void LiveServing::decide(int edge, double arrival, std::size_t image, std::uint64_t version) {
    const SplitPredictions &a = *m_releases[std::size_t(version)];
    const bool exitRight = a.exitClass[image] == a.label[image];
    if (m_env.dropsRequest && m_env.dropsRequest(edge)) {
        --m_pending[std::size_t(edge)]; // thrown away: no longer held, never answered
        return; // test-only: a read-only edge that stops serving (the audit must catch it)
    }
    if (answersAtEdge(a.confidence[image], m_env.threshold(edge)))
        answer(edge, now() - arrival, true, false, exitRight);
    else if (m_suspect[std::size_t(edge)])
        answer(edge, now() - arrival, true, true, exitRight);
    else
        forward(edge, arrival, image, version, exitRight);
}

void LiveServing::forward(int edge, double arrival, std::size_t image, std::uint64_t version, bool exitRight) {
    const int node = SimWorld::nodeOfEdge(edge);
    const std::uint64_t bytes = ServingWire::kHeaderBytes + ServingWire::featureBytes();
    // Whichever comes first answers: the center's reply, or the edge's own
    // answer at the deadline (lost message, cut link, slow or dead center),
    // which also makes the edge suspect the center.
    auto answered = std::make_shared<bool>(false);
    const double deadline = now() + m_options.timeoutSeconds;
    m_env.loop->at(deadline, [this, node, edge, arrival, exitRight, answered] {
        if (*answered)
            return;
        *answered = true;
        if (!m_env.alive(node)) {
            abandon(edge);
            return; // the edge died with the request: nobody is answered, nothing is learned
        }
        answer(edge, now() - arrival, true, true, exitRight);
        suspect(edge);
    });
    const auto atCenter = m_env.send(node, kCenterNode, bytes);
    m_interval.bytesToCenter += bytes; // sent, even when the link loses it
    if (!atCenter)
        return;
    m_env.loop->at(*atCenter, [this, node, arrival, deadline, image, version, answered] {
        if (*answered || !m_env.alive(kCenterNode))
            return;
        // The center half queues on the center's compute with its merges.
        const double done = m_env.occupy(kCenterNode, m_options.centerRequestSeconds +
                                                          m_env.computeSeconds(kCenterNode, 2.0 * double(SynapticNetImpl::centerMacsPerSample())));
        const SplitPredictions &r = *m_releases[std::size_t(version)];
        const bool right = r.centerClass[image] == r.label[image];
        m_env.loop->at(done, [this, node, arrival, deadline, right, answered] {
            if (*answered || !m_env.alive(kCenterNode))
                return;
            const auto back = m_env.send(kCenterNode, node, ServingWire::kReplyBytes);
            if (!back || *back > deadline)
                return; // the deadline timer answers
            m_env.loop->at(*back, [this, node, arrival, right, answered] {
                if (*answered)
                    return;
                *answered = true;
                if (!m_env.alive(node)) {
                    abandon(SimWorld::edgeOfNode(node));
                    return; // the reply reached a dead edge
                }
                answer(SimWorld::edgeOfNode(node), now() - arrival, false, false, right);
            });
        });
    });
}

void LiveServing::suspect(int edge) {
    m_suspect[std::size_t(edge)] = true;
    if (m_probing[std::size_t(edge)])
        return;
    m_probing[std::size_t(edge)] = true;
    m_env.loop->after(m_options.probeSeconds, [this, edge] { probe(edge); });
}

// A header-only round trip over the edge's real link; the center answers
// it without computing. Answered within the timeout, it ends the suspicion.
void LiveServing::probe(int edge) {
    const int node = SimWorld::nodeOfEdge(edge);
    if (!m_suspect[std::size_t(edge)]) {
        m_probing[std::size_t(edge)] = false;
        return;
    }
    m_env.loop->after(m_options.probeSeconds, [this, edge] { probe(edge); });
    if (!m_env.alive(node))
        return;
    const double deadline = now() + m_options.timeoutSeconds;
    m_interval.bytesToCenter += ServingWire::kHeaderBytes;
    const auto atCenter = m_env.send(node, kCenterNode, ServingWire::kHeaderBytes);
    if (!atCenter)
        return;
    m_env.loop->at(*atCenter, [this, edge, node, deadline] {
        if (!m_env.alive(kCenterNode))
            return;
        const auto back = m_env.send(kCenterNode, node, ServingWire::kHeaderBytes);
        if (back && *back <= deadline)
            m_env.loop->at(*back, [this, edge] { m_suspect[std::size_t(edge)] = false; });
    });
}

void LiveServing::report(double interval) {
    // The serving audit (issue 15 §3): per edge, every request that arrived
    // is answered, died with its edge, or is still being served.
    for (int edge = 0; edge < m_options.edges; ++edge) {
        const auto i = std::size_t(edge);
        if (m_arrived[i] == 0)
            continue;
        AuditEvent a;
        a.time = now();
        a.kind = AuditEvent::Kind::Serve;
        a.node = SimWorld::nodeOfEdge(edge);
        a.requests = m_arrived[i];
        a.answered = m_answered[i];
        a.abandoned = m_abandoned[i];
        a.pending = m_pending[i];
        m_env.emit(std::move(a));
    }
    InferenceEvent e = m_interval;
    e.time = now();
    e.interval = interval;
    if (!m_latenciesMs.empty()) {
        e.p50Ms = percentile(m_latenciesMs, 0.50);
        e.p95Ms = percentile(m_latenciesMs, 0.95);
        e.p99Ms = percentile(m_latenciesMs, 0.99);
    }
    m_env.emit(std::move(e));
    m_interval = InferenceEvent{};
    m_interval.p50Ms = m_interval.p95Ms = m_interval.p99Ms = std::numeric_limits<double>::quiet_NaN();
    m_latenciesMs.clear();
}

} // namespace synaptic::engine
