// Hub merges (knobs.hubMerges): the center pulls the hubs' merged copies,
// and a hub answers with what changed. See SynapticCenter.
#include "shard_hubs.h"
#include "synaptic_center.h"

#include "core/engine/synapse/flat_model.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <map>

namespace synaptic::engine {

void SynapticCenter::reportPullCheck(double now, Outbox &out) {
    if (m_pullCheck.checked == 0)
        return; // nothing taken or refused: no sync
    m_pullCheck.time = now;
    m_pullCheck.round = ++m_round;
    out.report(m_pullCheck);
    m_pullCheck = ConsistencyEvent{};
}

void SynapticCenter::sendPulls(double now, Outbox &out) {
    reportPullCheck(now, out); // some hub of the last round never answered
    // One request per hub naming the copy the center holds of each of its
    // shards: the answer is coded from there. A lost request costs a
    // period; an answer rides the reliable channel, and one overtaken by a
    // newer copy is not taken (takePulled).
    const auto heard = heardRegions(now);
    ++m_pullRound;
    std::map<int, Message> pulls;
    for (std::size_t id = 0; id < m_shards.size(); ++id) {
        const int hub = hubNodeOfShard(m_ctx, int(id));
        auto &pull = pulls[hub];
        pull.kind = MessageKind::HubPull;
        pull.to = hub;
        pull.round = m_pullRound; // the answer echoes it
        ShardItem item;
        item.shard = int(id);
        item.version = m_shards[id].version;
        item.checksum = m_shards[id].checksums.front().second;
        pull.shards.push_back(std::move(item));
    }
    m_pullAwaiting.clear();
    // A round stays open for settledAt() a while, beside newer ones: on a
    // link slower than the period a round still completes.
    const double keep = std::max(double(kOpenRounds) * m_ctx.config->knobs.hubPullSeconds, kOpenRoundSeconds);
    std::erase_if(m_openRounds, [&](const auto &r) { return r.second.sentAt < now - keep; });
    auto &round = m_openRounds[m_pullRound];
    round.sentAt = now;
    for (auto &[hub, pull] : pulls) {
        pull.owners.assign(heard.begin(), heard.end()); // the regions the hub's merges count
        m_pullAwaiting.insert(hub);
        // A hub whose edge holds no live lease (down, cut off) holds up no
        // settling: its shards stay as the center last took them, as a
        // dead owner's wait for its revival.
        if (m_leases.lease(ClusterShape::edgeOfNode(hub)).validAt(now))
            round.awaiting.insert(hub);
        out.send(std::move(pull));
    }
    if (round.awaiting.empty()) { // no hub it could wait for
        m_settledAt = std::max(m_settledAt, now);
        m_openRounds.erase(m_pullRound);
    }
}

void SynapticCenter::answerPull(double now, const Message &pull, Outbox &out) {
    m_centerHeard.clear();
    for (int region : pull.owners)
        if (region >= 0 && region < m_ctx.shape->regionCount())
            m_centerHeard.insert(region);
    const auto centerSlot = std::size_t(m_ctx.shape->regionCount());
    Message answer;
    answer.kind = MessageKind::HubCopy;
    answer.to = kCenterNode;
    answer.round = pull.round; // which round it answers
    answer.last = true;        // until a copy is withheld or coded (Message::last)
    for (const auto &asked : pull.shards) {
        if (asked.shard < 0 || std::size_t(asked.shard) >= m_shards.size() || !m_hubShards.count(asked.shard))
            continue;
        auto &s = m_shards[std::size_t(asked.shard)];
        sizeRegionCopies(s);
        if (asked.version > s.version)
            answer.last = false; // the center holds a version this hub no longer has: not settled
        if (asked.version == s.version && asked.checksum == checksum(asked.shard))
            continue; // it holds this hub's copy
        const bool codedNewest = asked.version == s.version && !s.regionCopy[centerSlot].empty() &&
                                 asked.checksum == s.regionChecksum[centerSlot];
        if (codedNewest) {
            // A lossy copy of the newest version: once the shard has
            // settled (no merge for knobs.hubSettleSeconds) the exact copy, so the
            // model the center serves ends as the hub's, not within a
            // codec's error of it (whose residual leaves only with a merge).
            if (now - s.mergedAt < m_ctx.config->knobs.hubSettleSeconds) {
                answer.last = false; // withheld: the center's copy is not exact yet
                continue;
            }
            answer.shards.push_back(wholeAnswer(asked.shard, s, centerSlot, 0));
            continue;
        }
        // The center's copy is one more region of the coded answers: a
        // delta when it holds what this hub last sent it, else the whole copy.
        answer.shards.push_back(answerItem(asked.shard, s, Report{int(centerSlot), kCenterNode, asked}));
        if (answer.shards.back().delta)
            answer.last = false; // a coded delta: within the codec's error of this hub's copy
    }
    // Sent even when nothing changed: the center's round ends when every
    // hub it asked has answered (takePulled).
    if (answer.shards.empty()) {
        out.send(std::move(answer));
        return;
    }
    // The statistics of the owners whose deltas came here (each owner sends
    // its statistics with its first delta of a sync), for the center's evaluation.
    if (!m_buffers.empty())
        setBatchNormStats(answer, evaluationBuffers(), m_ctx.config->codecs.center);
    out.send(std::move(answer));
}

void SynapticCenter::takePulled(double now, Message &&answer, Outbox &out) {
    if (answer.buffers.defined())
        m_buffers[answer.from] = answer.buffers;
    bool took = false;
    const std::uint64_t mismatchesBefore = m_mismatches;
    for (auto &item : answer.shards) {
        if (item.shard < 0 || std::size_t(item.shard) >= m_shards.size() ||
            hubNodeOfShard(m_ctx, item.shard) != answer.from)
            continue; // only a shard's hub speaks for it
        auto &s = m_shards[std::size_t(item.shard)];
        if (item.version < s.version || (item.version == s.version && item.checksum == checksum(item.shard)))
            continue; // overtaken by a newer copy (answers to older pulls), or one it holds
        if (item.delta && item.deltaFrom != s.version)
            continue; // from a copy this center no longer holds: the next pull gets the whole one
        ++m_pullCheck.checked;
        at::Tensor copy = item.delta ? s.global + item.data : std::move(item.data);
        const std::uint64_t copyChecksum = tensorChecksum(copy);
        if (copyChecksum != item.checksum) {
            // Not the copy the hub holds: keep this one; the next pull names
            // it, and the hub, not based on it, sends the whole copy.
            ++m_pullCheck.mismatches;
            ++m_mismatches;
            continue;
        }
        s.global = std::move(copy);
        s.version = item.version;
        s.remember(s.version, copyChecksum);
        took = true;
    }
    if (took)
        persist(out); // what it serves survives a restart (else it pulls whole copies again)
    noteSettling(answer, m_mismatches == mismatchesBefore);
    // The round's checks are one center sync once every hub asked answered
    // it: an answer to an older round (late on a slow link) is taken and
    // checked, but its hub's answer to this round is still to come.
    if (answer.round != m_pullRound)
        return;
    m_pullAwaiting.erase(answer.from);
    if (m_pullAwaiting.empty())
        reportPullCheck(now, out);
}

void SynapticCenter::noteSettling(const Message &answer, bool allChecked) {
    // A round whose every hub answered exact (Message::last: nothing
    // withheld, no coded delta) and whose copies all checked leaves the
    // center holding every hub's copy as of the round's send time.
    const auto round = m_openRounds.find(answer.round);
    if (round == m_openRounds.end() || !round->second.awaiting.erase(answer.from))
        return;
    round->second.exact = round->second.exact && answer.last && allChecked;
    if (!round->second.awaiting.empty())
        return;
    if (round->second.exact)
        m_settledAt = std::max(m_settledAt, round->second.sentAt);
    m_openRounds.erase(round);
}

} // namespace synaptic::engine
