#include "shard_optimizer.h"

#include <ATen/ATen.h>

#include <cmath>
#include <stdexcept>

namespace synaptic::engine {

void adamStep(at::Tensor &values, const at::Tensor &grad, AdamState &s, const AdamOptions &o) {
    if (!s.m.defined()) {
        s.m = at::zeros_like(values);
        s.v = at::zeros_like(values);
    }
    ++s.step;
    s.m.mul_(o.beta1).add_(grad, 1 - o.beta1);
    s.v.mul_(o.beta2).addcmul_(grad, grad, 1 - o.beta2);
    const double bc1 = 1 - std::pow(o.beta1, double(s.step));
    const double bc2 = 1 - std::pow(o.beta2, double(s.step));
    const auto denom = (s.v.sqrt() / std::sqrt(bc2)).add_(o.eps);
    values.addcdiv_(s.m, denom, -o.lr / bc1);
}

OuterOptimizer::OuterOptimizer(std::string kind, double lr, double momentum) { setParameters(kind, lr, momentum); }

void OuterOptimizer::setParameters(std::string kind, double lr, double momentum) {
    if (kind != "nesterov" && kind != "average")
        throw std::invalid_argument("outer optimizer must be \"nesterov\" or \"average\", got \"" + kind + "\"");
    m_kind = std::move(kind);
    m_lr = lr;
    m_momentum = momentum;
}

void OuterOptimizer::step(at::Tensor &global, const at::Tensor &meanDelta, at::Tensor &momentum) const {
    if (m_kind == "average") {
        global.add_(meanDelta);
        return;
    }
    // Outer gradient g = -meanDelta; buf = mu*buf + g; global -= lr*(g + mu*buf).
    if (!momentum.defined())
        momentum = at::zeros_like(global);
    momentum.mul_(m_momentum).sub_(meanDelta);
    global.add_(meanDelta, m_lr).sub_(momentum, m_lr * m_momentum);
}

} // namespace synaptic::engine
