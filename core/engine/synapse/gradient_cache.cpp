#include "gradient_cache.h"

#include <torch/csrc/autograd/grad_mode.h>
#include <torch/types.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace synaptic::engine {

GradientCache::GradientCache(std::vector<std::int64_t> shardSizes, std::uint64_t maxStaleness)
    : m_sizes(std::move(shardSizes)), m_slots(m_sizes.size()), m_maxStaleness(maxStaleness) {}

GradientCache::PushResult GradientCache::pushGradient(int shard, const at::Tensor &gradient, std::uint64_t version) {
    auto refuse = [this](PushResult r) {
        ++m_rejected;
        return r;
    };
    if (shard < 0 || std::size_t(shard) >= m_slots.size())
        return refuse(PushResult::UnknownShard);
    if (!gradient.defined() || gradient.dim() != 1 || gradient.numel() != m_sizes[std::size_t(shard)])
        return refuse(PushResult::WrongShape);
    Slot &slot = m_slots[std::size_t(shard)];
    if (version > slot.cachedVersion)
        return refuse(PushResult::FutureVersion);
    if (slot.cachedVersion - version > m_maxStaleness)
        return refuse(PushResult::Stale);
    if (!torch::isfinite(gradient).all().item<bool>())
        return refuse(PushResult::NonFinite);

    torch::NoGradGuard noGrad;
    if (slot.contributions == 0) {
        slot.sum = gradient.detach().clone();
        slot.baseVersion = version;
    } else {
        slot.sum.add_(gradient.detach());
        slot.baseVersion = std::min(slot.baseVersion, version);
    }
    ++slot.contributions;
    ++m_accepted;
    return PushResult::Accepted;
}

void GradientCache::setCachedVersion(int shard, std::uint64_t version, bool allowBackwards) {
    if (shard < 0 || std::size_t(shard) >= m_slots.size())
        throw std::invalid_argument("GradientCache: no shard " + std::to_string(shard));
    Slot &slot = m_slots[std::size_t(shard)];
    if (version < slot.cachedVersion && !allowBackwards)
        throw std::logic_error("GradientCache: cached version of shard " + std::to_string(shard) +
                               " would go back from " + std::to_string(slot.cachedVersion) + " to " +
                               std::to_string(version));
    slot.cachedVersion = version;
}

std::uint64_t GradientCache::cachedVersion(int shard) const {
    if (shard < 0 || std::size_t(shard) >= m_slots.size())
        throw std::invalid_argument("GradientCache: no shard " + std::to_string(shard));
    return m_slots[std::size_t(shard)].cachedVersion;
}

std::vector<MergedGradient> GradientCache::flush() { return flushExcept({}); }

std::vector<MergedGradient> GradientCache::flushExcept(const std::vector<bool> &hold) {
    if (!hold.empty() && hold.size() != m_slots.size())
        throw std::invalid_argument("GradientCache::flushExcept: hold marks " + std::to_string(hold.size()) +
                                    " shards, the cache has " + std::to_string(m_slots.size()));
    std::vector<MergedGradient> out;
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        Slot &slot = m_slots[i];
        if (slot.contributions == 0)
            continue;
        if (i < hold.size() && hold[i]) {
            ++slot.windowsHeld;
            continue;
        }
        out.push_back({int(i), slot.sum.div_(double(slot.contributions)), slot.contributions, slot.baseVersion,
                       1 + slot.windowsHeld});
        slot.sum = at::Tensor();
        slot.contributions = 0;
        slot.windowsHeld = 0;
    }
    return out;
}

bool GradientCache::empty() const {
    return std::all_of(m_slots.begin(), m_slots.end(), [](const Slot &s) { return s.contributions == 0; });
}

} // namespace synaptic::engine
