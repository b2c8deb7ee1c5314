#include "inference_service.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/inference/exit_policy.h"
#include "core/engine/model.h"
#include "core/engine/synapse/flat_model.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>

namespace synaptic::rpc {

namespace e = synaptic::engine;

namespace {

at::Tensor imageTensor(const std::string &bytes, const std::string &device) {
    auto pixels = at::from_blob(const_cast<char *>(bytes.data()), {1, 1, data::kImageSide, data::kImageSide}, at::kByte);
    return ((pixels.to(at::kFloat) / 255.0f - data::kPixelMean) / data::kPixelStd).to(device);
}

struct Answer {
    int label = 0;
    float confidence = 0;
};

Answer best(const at::Tensor &logits) {
    const auto probs = at::softmax(logits, 1);
    const auto [conf, label] = probs.max(1);
    return {int(label.item<std::int64_t>()), conf.item<float>()};
}

} // namespace

InferenceService::InferenceService(Setup setup) : m_setup(std::move(setup)) { m_ready = true; }

void InferenceService::attach(Setup setup) {
    m_setup = std::move(setup);
    m_ready = true;
}

grpc::ServerUnaryReactor *InferenceService::Classify(grpc::CallbackServerContext *context,
                                                     const v1::ClassifyRequest *request, v1::ClassifyReply *reply) {
    auto *reactor = context->DefaultReactor();
    if (!m_ready) {
        reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "this node has not joined its cluster yet"));
        return reactor;
    }
    if (!m_flood.allow(context->peer())) {
        reactor->Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "flood: over the request rate"));
        return reactor;
    }
    if (request->image().size() != std::size_t(data::kImagePixels)) {
        reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                     "image: expected " + std::to_string(data::kImagePixels) + " bytes (28x28 uint8), got " +
                                         std::to_string(request->image().size())));
        return reactor;
    }
    const bool queued = m_setup.host->postTask([this, reactor, request, reply](e::SimNode &node, double, e::Outbox &) {
        torch::NoGradGuard noGrad;
        const auto x = imageTensor(request->image(), m_setup.model->device);
        if (m_setup.centerModel) {
            if (!m_centerScratch)
                m_centerScratch = m_setup.model->newModel();
            if (!m_setup.centerModel(node, *m_centerScratch)) {
                reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the center has no model yet"));
                return;
            }
            auto *split = m_centerScratch->task().splitNet();
            if (!split) {
                reactor->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                             "the " + m_setup.model->task + " task has no early-exit model to serve"));
                return;
            }
            auto &net = *split;
            net->eval();
            const auto a = best(net->forward(x).logits);
            reply->set_label(a.label);
            reply->set_confidence(a.confidence);
            reply->set_served_by(m_setup.name);
            reactor->Finish(grpc::Status::OK);
            return;
        }
        auto *model = node.servingModel();
        auto *split = model ? model->task().splitNet() : nullptr;
        if (!split) {
            reactor->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                         model ? "the " + m_setup.model->task + " task has no early-exit model to serve"
                                               : std::string("this node serves no model")));
            return;
        }
        auto &net = *split;
        const bool training = net->is_training();
        net->eval();
        const auto exitAnswer = best(net->forwardEdge(x).exitLogits);
        if (training)
            net->train();
        reply->set_label(exitAnswer.label);
        reply->set_confidence(exitAnswer.confidence);
        reply->set_served_by(m_setup.name);
        reply->set_at_edge(true);
        const bool confident = e::answersAtEdge(exitAnswer.confidence, m_setup.threshold());
        if (confident || !m_setup.forward) {
            reactor->Finish(grpc::Status::OK);
            return;
        }
        if (!m_setup.canReachCenter()) {
            reply->set_degraded(true); // read-only or cut off: the edge answers everything itself
            reactor->Finish(grpc::Status::OK);
            return;
        }
        m_setup.forward(*request, [reactor, reply](const grpc::Status &status, const v1::ClassifyReply &center) {
            if (status.ok()) {
                *reply = center;
                reply->set_at_edge(false);
            } else {
                reply->set_degraded(true); // the exit head's answer stands
            }
            reactor->Finish(grpc::Status::OK);
        });
    });
    if (!queued)
        reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "this node is shutting down"));
    return reactor;
}

} // namespace synaptic::rpc
