#include "sim_serving.h"

#include "event_loop.h"
#include "sim_transport.h"
#include "sim_world.h"
#include "strategy.h"

#include "core/engine/inference/live_serving.h"
#include "core/engine/model.h"

namespace synaptic::engine {

SimServing::SimServing() = default;
SimServing::~SimServing() = default;

std::string SimServing::start(Setup setup, const TensorSet &pool) {
    m_setup = std::move(setup);
    const SimWorld &world = *m_setup.world;
    const auto &s = world.config.serving;
    if (!(s.requestRate > 0))
        return "";
    if (!m_setup.hasCenter)
        return "serving is off: " + world.config.strategy +
               " has no center to forward requests to or to release edge images";
    m_scratch = world.newModel();
    if (!m_scratch->task().splitNet()) {
        m_scratch.reset();
        return "serving is off: the " + world.config.task + " task has no early-exit model to serve with";
    }
    LiveServing::Env env;
    env.loop = m_setup.loop;
    auto *transport = m_setup.transport;
    env.send = [transport](int from, int to, std::uint64_t bytes) { return transport->sendRaw(from, to, bytes); };
    env.alive = m_setup.alive;
    env.occupy = m_setup.occupy;
    env.threshold = [&world](int edge) { return world.confidenceThreshold(edge); };
    env.computeSeconds = [&world](int node, double flops) { return world.computeSeconds(node, flops); };
    env.emit = m_setup.emit;
    m_readOnly.assign(std::size_t(world.edgeCount()), false);
    env.dropsRequest = [this, &world](int edge) {
        const auto f = world.faults.find(SimWorld::nodeOfEdge(edge));
        return f != world.faults.end() && f->second.breakReadOnlyServing && m_readOnly[std::size_t(edge)];
    };
    LiveServing::Options o;
    o.ratePerEdge = s.requestRate;
    o.measure = parseConfidenceMeasure(s.confidence).value_or(ConfidenceMeasure::MaxSoftmax);
    o.releaseEverySyncs = s.releaseEverySyncs;
    o.timeoutSeconds = s.timeoutMs / 1000.0;
    o.probeSeconds = s.probeMs / 1000.0;
    o.edgeRequestSeconds = s.edgeRequestMs / 1000.0;
    o.centerRequestSeconds = s.centerRequestMs / 1000.0;
    o.seed = world.config.seed;
    o.edges = world.edgeCount();
    m_serving = std::make_unique<LiveServing>(std::move(env), o, pool);
    m_serving->start(*m_scratch->task().splitNet());
    return "";
}

void SimServing::observe(const SimEvent &e) {
    if (!m_serving)
        return;
    if (const auto *lease = std::get_if<LeaseEvent>(&e); lease && std::size_t(lease->edge) < m_readOnly.size())
        m_readOnly[std::size_t(lease->edge)] = lease->mode == "read_only";
    if (!std::holds_alternative<ConsistencyEvent>(e))
        return;
    m_sawCenterSync = true;
    // Cut the release after the merge that emitted this has finished.
    if (m_serving->onCenterSync())
        m_setup.loop->at(m_setup.loop->now(), [this] { release(); });
}

void SimServing::onEvaluation() {
    if (m_serving && !m_sawCenterSync)
        release();
}

void SimServing::setReleaseEverySyncs(int k) {
    if (m_serving)
        m_serving->setReleaseEverySyncs(k);
}

void SimServing::report(double interval) {
    if (m_serving)
        m_serving->report(interval);
}

void SimServing::release() {
    m_setup.strategy->globalModel(*m_scratch);
    m_serving->release(*m_scratch->task().splitNet());
}

} // namespace synaptic::engine
