#include "collecting_center.h"

#include <ATen/ATen.h>

namespace synaptic::engine {

CollectingCenter::CollectingCenter(const NodeContext &ctx, MessageKind collects, int expected,
                                   CodecSpec CodecKnobs::*replyCodec)
    : SimNode(kCenterNode), m_ctx(ctx), m_collects(collects), m_expected(expected), m_replyCodec(replyCodec),
      m_copies(ctx.model->initialValues) {
    m_values = ctx.model->initialValues.clone();
    m_buffers = ctx.model->initialBuffers.clone();
}

void CollectingCenter::start(double now, Outbox &out) {
    if (!m_from.empty()) // restarted with tensors on hand: their straggler timer died with the process
        out.timer(now + kStragglerSeconds, 0, m_round);
}

void CollectingCenter::onMessage(double now, Message &&m, Outbox &out) {
    if (m.kind != m_collects)
        return;
    if (m_from.empty())
        out.timer(now + kStragglerSeconds, 0, m_round);
    m_sum = m_sum.defined() ? m_sum.add_(m.tensor) : m.tensor.clone();
    m_bufferSum = m_bufferSum.defined() ? m_bufferSum.add_(m.buffers) : m.buffers.clone();
    m_from.emplace_back(m.from, m.copyVersion);
    if (int(m_from.size()) == m_expected)
        step(out);
}

void CollectingCenter::onTimer(double, int, std::uint64_t round, Outbox &out) {
    if (round == m_round && !m_from.empty())
        step(out);
}

bool CollectingCenter::evaluationModel(at::Tensor &values, at::Tensor &buffers) const {
    values = m_values.clone();
    buffers = m_buffers.clone();
    return true;
}

void CollectingCenter::step(Outbox &out) {
    const double n = double(m_from.size());
    update(m_values, m_sum.div_(n));
    out.compute(m_ctx.computeSeconds((n + updateFlopsPerParameter()) * double(m_values.numel())));
    m_buffers = m_bufferSum.div_(n);
    ++m_round;
    const CodecSpec codec = m_ctx.config->codecs.*m_replyCodec;
    for (const auto &[node, held] : m_from) {
        Message v = m_copies.valuesFor(node, held, m_values, m_round, codec);
        out.send(std::move(v));
    }
    m_sum = m_bufferSum = at::Tensor();
    m_from.clear();
}

} // namespace synaptic::engine
