// The synaptic strategy (DESIGN.md §1): sharded owners per region, windowed
// gradient aggregation, rare center syncs with an outer optimizer, leases.
#include "synaptic_center.h"
#include "synaptic_edge.h"

#include "common.h"
#include "core/engine/sim/strategy.h"

namespace synaptic::engine {

namespace {

class SynapticStrategy : public Strategy {
public:
    std::vector<std::unique_ptr<SimNode>> createNodes(SimWorld &world) override {
        m_world = &world;
        std::vector<std::unique_ptr<SimNode>> nodes;
        auto center = std::make_unique<SynapticCenter>(world.context(kCenterNode));
        m_center = center.get();
        nodes.push_back(std::move(center));
        for (int e = 0; e < world.edgeCount(); ++e) {
            auto edge = std::make_unique<SynapticEdge>(world.context(SimWorld::nodeOfEdge(e)));
            m_edges.push_back(edge.get());
            m_replicas.push_back(&edge->replica());
            nodes.push_back(std::move(edge));
        }
        return nodes;
    }

    bool hasShardOwners() const override { return true; }

    // The model the center would serve: its global values and the
    // batch-norm statistics owners sent it with their deltas (issue 14: not
    // one the harness assembles from every replica).
    void globalModel(FlatModel &into) override {
        at::Tensor values, buffers;
        m_center->evaluationModel(values, buffers);
        into.setValues(values);
        into.setBuffers(buffers);
    }

    int regionModels() const override { return m_world->regionCount(); }

    void regionModel(int region, FlatModel &into) override {
        std::vector<Replica *> members;
        for (int e : m_world->shape->edgesOfRegion[std::size_t(region)]) {
            members.push_back(m_replicas[std::size_t(e)]);
            auto &owner = m_edges[std::size_t(e)]->owner();
            for (int shard : owner.ownedShards())
                into.setShardValues(shard, owner.values(shard));
        }
        into.setBuffers(meanBuffers(members));
    }

    bool finished() const override {
        if (m_world->stepsPerEdge == 0)
            return false;
        for (auto *e : m_edges) {
            if (!m_world->alive[std::size_t(e->id())])
                continue; // a dead edge trains no more; what it owned waits for its revival
            if (!e->done() || !e->owner().idle() || (!e->owner().ownedShards().empty() && !e->owner().finishing()) ||
                (e->hub() && !e->hub()->idle()))
                return false;
        }
        return m_center->idle() && hubShardsBehind() == 0;
    }

    // Under hub merges: shards of live hubs whose newest merge the center
    // does not hold exactly yet: the model it serves at the end is the
    // hubs' last. A dead hub's shards are skipped, as a dead owner's are
    // (its last merges reach the center after its revival).
    int hubShardsBehind() const {
        int behind = 0;
        for (auto *e : m_edges)
            if (const auto *hub = e->hub(); hub && m_world->alive[std::size_t(e->id())])
                for (int shard : hub->hubShards())
                    behind += hub->version(shard) != m_center->version(shard) ||
                              hub->checksum(shard) != m_center->checksum(shard);
        return behind;
    }

    std::string unfinishedParts() const override {
        std::string out;
        auto add = [&out](const std::string &part) { out += (out.empty() ? "" : "; ") + part; };
        if (!m_world->alive[std::size_t(m_center->id())])
            add("center: down");
        for (auto *e : m_edges) {
            const std::string name = m_world->edgeName(ClusterShape::edgeOfNode(e->id()));
            if (!m_world->alive[std::size_t(e->id())]) {
                // finished() skips a dead edge, but what it owns (its
                // shards' merges and center syncs) waits for its revival,
                // and so do the regions' merges of the shards it is hub of.
                if (const auto owned = e->owner().ownedShards(); !owned.empty())
                    add(name + ": down, owning " + std::to_string(owned.size()) + " shard(s)");
                if (e->hub())
                    add(name + ": down, hub of " + std::to_string(e->hub()->hubShards().size()) + " shard(s)");
                continue;
            }
            if (!e->done())
                add(name + ": steps left (" + std::to_string(e->stepsPushed()) + " of " +
                    std::to_string(m_world->stepsPerEdge) + " pushed)");
            if (e->mode() != EdgeLeaseState::Mode::Training)
                add(name + ": lease " + (e->mode() == EdgeLeaseState::Mode::ReadOnly ? "lapsed (read-only)"
                                                                                      : "catching up"));
            if (const auto why = e->owner().whyNotIdle(); !why.empty())
                add(name + "'s owner: " + why);
            else if (!e->owner().ownedShards().empty() && !e->owner().finishing())
                add(name + "'s owner: not told its region is done");
        }
        if (const int waiting = m_center->shardsWithReports(); waiting > 0)
            add("center: " + std::to_string(waiting) + " shard(s) with region reports not merged");
        for (auto *e : m_edges)
            if (const auto *hub = e->hub(); hub && hub->shardsWithReports() > 0)
                add(m_world->edgeName(ClusterShape::edgeOfNode(e->id())) + "'s hub: " +
                    std::to_string(hub->shardsWithReports()) + " shard(s) with region reports not merged");
        if (const int behind = hubShardsBehind(); behind > 0)
            add("center: " + std::to_string(behind) + " shard(s) not pulled from their hubs yet");
        return out;
    }

    std::vector<Replica *> replicas() const override { return m_replicas; }

    int moveTarget(const SimCommand &cmd, std::string &why) override {
        const auto snap = m_world->routing->snapshot();
        if (cmd.shard < 0 || std::size_t(cmd.shard) >= snap->rows.size()) {
            why = "no shard " + std::to_string(cmd.shard);
            return -1;
        }
        if (cmd.region < 0 || cmd.region >= m_world->regionCount()) {
            why = "no region " + std::to_string(cmd.region);
            return -1;
        }
        if (cmd.node < 0 || cmd.node >= m_world->edgeCount() || m_world->regionOfEdge(cmd.node) != cmd.region) {
            why = "shards move only between edges of the same region";
            return -1;
        }
        if (m_edges[std::size_t(cmd.node)]->mode() != EdgeLeaseState::Mode::Training) {
            why = "edge " + m_world->edgeName(cmd.node) + " is read-only (no valid lease)";
            return -1;
        }
        return SimWorld::nodeOfEdge(snap->rows[std::size_t(cmd.shard)]->owner[std::size_t(cmd.region)]);
    }

private:
    SimWorld *m_world = nullptr;
    SynapticCenter *m_center = nullptr;
    std::vector<SynapticEdge *> m_edges;
    std::vector<Replica *> m_replicas;
};

} // namespace

std::unique_ptr<Strategy> makeSynapticStrategy() { return std::make_unique<SynapticStrategy>(); }

std::unique_ptr<SimNode> makeSynapticNode(const NodeContext &ctx) {
    if (ctx.node == kCenterNode)
        return std::make_unique<SynapticCenter>(ctx);
    return std::make_unique<SynapticEdge>(ctx);
}

} // namespace synaptic::engine
