#include "hot_update_sim.h"

#include "center_log.h"
#include "embedding_edge.h"
#include "embedding_owner.h"
#include "row_delta.h"
#include "row_presence.h"

#include "core/data/data_error.h"
#include "core/engine/config_error.h"
#include "core/engine/sim/event_loop.h"
#include "core/engine/sim/link.h"
#include "core/engine/sim/link_geography.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/tasks/langid_training.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>

namespace synaptic::engine {

namespace {

enum class Traffic { Gradient, Publish, OwnerToOwner, Center, CatchUp };

// Notes number `seq` in an outbox (publish or change); true when the outbox
// was idle and a flush must be scheduled.
template <typename Outbox>
bool queueNumber(Outbox &box, std::uint64_t seq) {
    if (box.from == 0)
        box.from = seq;
    box.to = seq;
    if (box.scheduled)
        return false;
    box.scheduled = true;
    return true;
}

// The scenario's driver: the event loop, the links, the nodes' states and the
// measurements. Nodes never touch each other: every exchange is a message the
// driver carries over a link (DESIGN.md §3).
class HotUpdateDriver {
public:
    HotUpdateDriver(const ClusterConfig &config, const data::TextCorpus &corpus, const HotUpdateOptions &o)
        : m_config(config), m_shape(config), m_geo(config), m_o(o), m_corpus(corpus) {
        if (m_o.windowSteps <= 0)
            m_o.windowSteps = std::max(1, config.knobs.aggregationWindowSteps);
        if (m_o.centerSyncWindows <= 0)
            m_o.centerSyncWindows = std::max(1, config.knobs.centerSyncWindows);
        m_lagBound = m_o.lagBound;
        m_valuesCodec = m_o.valuesCodec.value_or(config.codecs.values);
        if (const std::string why = rowValuesCodecRefusal(m_valuesCodec); !why.empty())
            throw ConfigError(m_o.valuesCodec ? "values codec" : "codecs.values", why);
    }

    HotUpdateResult run(const HotUpdateHooks &hooks);

private:
    // --- set-up
    void buildData();
    void buildNodes();
    // --- edges
    void edgeStep(int edge);
    void scheduleStep(int edge, double delay);
    std::vector<std::size_t> drawBatch(int edge);
    // --- owners
    void ownerMerge(int region, int shard);
    void ownerReceiveChange(int region, int shard, int origin, std::uint64_t from, std::uint64_t to,
                            const RowDelta &change);
    void ownerPublish(int region, int shard, const std::vector<std::int64_t> &rows, std::uint64_t seq);
    void ownerSendChange(int region, int shard, std::uint64_t seq, const RowDelta &change);
    void ownerCenterSync(int region, int shard);
    // --- edges receiving
    void edgeReceivePublish(int edge, int shard, std::uint64_t from, std::uint64_t to, std::uint64_t latest,
                            const RowDelta &values);
    // --- plumbing
    void send(int fromNode, int toNode, std::uint64_t bytes, Traffic traffic, std::function<void()> deliver);
    Link &linkFor(int fromNode, int toNode);
    // When a message sent now from `fromNode` to `toNode` could start: later
    // than now while the link is busy with earlier ones.
    double linkFreeAt(int fromNode, int toNode);
    void flushPublish(int region, int shard, int edge);
    void flushChange(int region, int shard, int toRegion);
    // An embedding message of `bytes`, and what the whole shard would have
    // cost in its place at `valueBytes` a value (the message's own codec).
    void countEmbedding(int shard, std::uint64_t bytes, double valueBytes);
    // Row values as they go from `fromNode` to `toNode`: coded (and charged
    // coded) across a link; an owner's own edge reads its copy as it is.
    std::uint64_t codeValues(RowDelta &values, int fromNode, int toNode) const;
    int ownerEdge(int region, int shard) const { return m_plan.owner[std::size_t(region)][std::size_t(shard)]; }
    EmbeddingOwner &owner(int region, int shard) { return *m_owners[std::size_t(region)][std::size_t(shard)]; }
    bool isEmbedding(int shard) const { return shard != m_classifierShard; }
    void evaluate();
    void auditRows(int edge, const std::vector<std::int64_t> &rows);
    // --- the app's live view
    void readControls();
    HotUpdateFrame frame();

    const ClusterConfig &m_config;
    ClusterShape m_shape;
    LinkGeography m_geo;
    HotUpdateOptions m_o;
    CodecSpec m_valuesCodec; // owner -> edge row values
    const data::TextCorpus &m_corpus;
    EventLoop m_loop;
    std::map<std::pair<int, int>, std::unique_ptr<Link>> m_links;
    HotUpdateResult m_r;

    LangIdShape m_modelShape;
    ShardPlan m_plan;
    std::unique_ptr<RowShardMap> m_table;
    int m_classifierShard = 0;
    // What waits behind a busy link, coalesced: per (region, shard, edge) the
    // rows to publish and the publish numbers they cover; per (region, shard,
    // other region) the summed changes and the sequence numbers they cover.
    struct PublishOutbox {
        std::set<std::int64_t> rows;
        std::uint64_t from = 0, to = 0;
        bool scheduled = false;
        std::vector<bool> sentEver; // per row of the shard: ever sent to this edge
        // Part of this backlog left in a message that claimed no number: if
        // that one was lost, a later claim would cover rows the edge never
        // got, so nothing claims until the edge catches up.
        bool split = false;
    };
    struct ChangeOutbox {
        std::vector<std::int64_t> rows;
        std::vector<at::Tensor> values;
        std::uint64_t from = 0, to = 0;
        bool scheduled = false;
    };
    std::map<std::tuple<int, int, int>, PublishOutbox> m_publishOut;
    std::map<std::tuple<int, int, int>, ChangeOutbox> m_changeOut;
    int m_newLabel = -1;
    EncodedTexts m_train;
    EncodedTexts m_newLanguageTest;
    EncodedTexts m_overallTest;
    std::vector<std::vector<std::size_t>> m_pool;  // per edge: its share of the old languages
    std::vector<std::size_t> m_newPool;            // the new language's training texts
    std::vector<std::mt19937_64> m_rng;            // per edge
    std::vector<std::vector<std::size_t>> m_deferred; // per edge: a batch waiting for a catch-up
    std::vector<std::unique_ptr<EmbeddingEdge>> m_edges;
    std::vector<std::vector<std::unique_ptr<EmbeddingOwner>>> m_owners; // [region][shard]
    std::vector<std::uint64_t> m_edgeSteps;
    std::vector<std::uint64_t> m_stepGeneration; // per edge: the one scheduled step that may run
    std::vector<int> m_probe; // per region: the edge evaluated
    std::unique_ptr<EmbeddingCenterLog> m_center;
    std::vector<std::vector<double>> m_holdBack; // [region][shard]: one-way latency to the farthest other owner
    std::unique_ptr<RowPresence> m_presence;
    // Audit: per region, embedding row -> publish numbers (of its owner) that changed it.
    std::vector<std::vector<std::vector<std::uint64_t>>> m_rowHistory; // [region][row]
    std::vector<std::vector<double>> m_firstChangedAt;                // [region][row]: first publish, -1 none
    // The live view: the bound in force (options' or the operator's), the
    // routing table the frames show, and when each owner last heard the center.
    HotUpdateControls *m_controls = nullptr;
    bool m_keepRecent = false; // frames are asked for: keep the rolling window
    int m_lagBound = 0;
    std::unique_ptr<RoutingTable> m_routing;
    std::vector<std::vector<double>> m_lastCenterSync; // [region][shard]
};

void HotUpdateDriver::buildData() {
    const auto &langs = m_corpus.languages;
    for (std::size_t i = 0; i < langs.size(); ++i)
        if (langs[i].code == m_o.newLanguage)
            m_newLabel = int(i);
    if (m_newLabel < 0)
        throw ConfigError("new_language", "'" + m_o.newLanguage + "' is not among the corpus's languages");
    if (m_o.newLanguageRegion < 0 || m_o.newLanguageRegion >= m_shape.regionCount())
        throw ConfigError("new_language_region", "region index " + std::to_string(m_o.newLanguageRegion) +
                                                     " is outside the config's " +
                                                     std::to_string(m_shape.regionCount()) + " regions");
    data::NgramOptions ngrams;
    ngrams.buckets = m_o.buckets;
    ngrams.maxN = m_o.ngramMax;
    m_train = encodeTexts(m_corpus.train, ngrams);

    std::vector<data::TextSample> newTest;
    std::vector<data::TextSample> overall;
    // A fixed subset of the test split over every language, by stride.
    const std::size_t stride = std::max<std::size_t>(1, m_corpus.test.size() / std::max<std::size_t>(1, m_o.evalSubset));
    for (std::size_t i = 0; i < m_corpus.test.size(); ++i) {
        if (m_corpus.test[i].label == m_newLabel)
            newTest.push_back(m_corpus.test[i]);
        if (i % stride == 0)
            overall.push_back(m_corpus.test[i]);
    }
    m_newLanguageTest = encodeTexts(newTest, ngrams);
    m_overallTest = encodeTexts(overall, ngrams);

    // Old languages dealt round-robin over all edges (IID); the new one kept aside.
    const int edges = m_shape.edgeCount();
    m_pool.resize(std::size_t(edges));
    std::vector<std::size_t> order(m_train.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::mt19937_64 shuffle(m_o.seed);
    std::shuffle(order.begin(), order.end(), shuffle);
    std::size_t next = 0;
    for (auto i : order) {
        if (m_train.labels[i] == m_newLabel)
            m_newPool.push_back(i);
        else
            m_pool[next++ % std::size_t(edges)].push_back(i);
    }
    for (int e = 0; e < edges; ++e)
        m_rng.emplace_back(m_o.seed * 1000003ULL + std::uint64_t(e));
}

void HotUpdateDriver::buildNodes() {
    const int regions = m_shape.regionCount();
    const int edges = m_shape.edgeCount();
    m_modelShape = {m_o.buckets, m_o.dim, std::int64_t(m_corpus.classCount())};

    torch::manual_seed(m_o.seed);
    LangIdNet init(m_modelShape, /*sparse=*/true);
    if (m_o.warmStartEpochs > 0) {
        EncodedTexts old;
        for (std::size_t i = 0; i < m_train.size(); ++i)
            if (m_train.labels[i] != m_newLabel) {
                old.grams.push_back(m_train.grams[i]);
                old.labels.push_back(m_train.labels[i]);
            }
        LangIdTrainOptions warm;
        warm.epochs = m_o.warmStartEpochs;
        warm.seed = m_o.seed;
        warm.cancelled = [this] { return m_controls && m_controls->stop.load(std::memory_order_relaxed); };
        trainLangId(*init, old, warm);
        if (warm.cancelled())
            return; // stopped while warming up: build nothing more (run() sees the stop)
    }
    // The same planner as every other model (DESIGN.md §1): the table splits
    // into row ranges, the classifier by output rows, and each region's edges
    // own shares sized by their capacity within the config's bounds.
    PlanOptions bounds;
    bounds.minShare = m_config.planner.minShare;
    bounds.maxShare = m_config.planner.maxShare;
    m_plan = planShards(layoutOf(*init), topologyOf(m_config), bounds);
    m_table = std::make_unique<RowShardMap>(m_plan, "embedding");
    int classifierShards = 0;
    for (const auto &shard : m_plan.shards)
        if (shard.layer == "classifier") {
            m_classifierShard = shard.id;
            ++classifierShards;
        }
    if (classifierShards != 1)
        throw ConfigError("planner", "the language-ID classifier must be one shard, the plan made " +
                                         std::to_string(classifierShards));
    m_r.shardsPerRegion = int(m_table->shards().size());
    m_r.planProblems = m_plan.problems;

    const auto table = init->embedding->weight.detach().clone();
    const auto classifier =
        torch::cat({init->classifier->weight.detach(), init->classifier->bias.detach().unsqueeze(1)}, 1).clone();
    double largest = 0;
    for (const auto &shard : m_plan.shards)
        largest = std::max(largest, double(shard.parameters) / double(m_plan.totalParameters));
    m_r.shardShare = largest;
    m_r.edgeShareMin = *std::min_element(m_plan.edgeShare.begin(), m_plan.edgeShare.end());
    m_r.edgeShareMax = *std::max_element(m_plan.edgeShare.begin(), m_plan.edgeShare.end());

    const int shardCount = int(m_plan.shards.size());
    for (int e = 0; e < edges; ++e)
        m_edges.push_back(
            std::make_unique<EmbeddingEdge>(m_modelShape, *m_table, m_classifierShard, shardCount, table, classifier));
    m_owners.resize(std::size_t(regions));
    for (int q = 0; q < regions; ++q) {
        for (const auto &shard : m_plan.shards) {
            const bool isTable = shard.layer == "embedding";
            const auto values = isTable ? table.narrow(0, shard.rowBegin, shard.rowEnd - shard.rowBegin).clone()
                                        : classifier.clone();
            m_owners[std::size_t(q)].push_back(
                std::make_unique<EmbeddingOwner>(shard.id, q, regions, isTable ? shard.rowBegin : 0, values));
        }
        const auto &members = m_shape.edgesOfRegion[std::size_t(q)];
        m_probe.push_back(members.size() > 1 ? members[1] : members[0]);
    }
    m_center = std::make_unique<EmbeddingCenterLog>(shardCount, regions);
    m_holdBack.assign(std::size_t(regions), std::vector<double>(std::size_t(shardCount), 0.0));
    for (int q = 0; q < regions; ++q)
        for (int s = 0; s < shardCount; ++s)
            for (int other = 0; other < regions; ++other)
                if (other != q)
                    m_holdBack[std::size_t(q)][std::size_t(s)] =
                        std::max(m_holdBack[std::size_t(q)][std::size_t(s)],
                                 m_geo.between(ownerEdge(q, s) + 1, ownerEdge(other, s) + 1).latencySeconds);
    m_edgeSteps.assign(std::size_t(edges), 0);
    m_stepGeneration.assign(std::size_t(edges), 0);
    m_deferred.resize(std::size_t(edges));
    std::vector<int> regionOfEdge(m_shape.regionOfEdge.begin(), m_shape.regionOfEdge.end());
    m_presence = std::make_unique<RowPresence>(regions, regionOfEdge, m_o.newLanguageAt);
    m_presence->keepRecent(m_keepRecent);
    m_rowHistory.assign(std::size_t(regions), std::vector<std::vector<std::uint64_t>>(std::size_t(m_o.buckets)));
    m_firstChangedAt.assign(std::size_t(regions), std::vector<double>(std::size_t(m_o.buckets), -1.0));
    m_routing = std::make_unique<RoutingTable>(m_plan, topologyOf(m_config));
    m_lastCenterSync.assign(std::size_t(regions), std::vector<double>(std::size_t(shardCount), 0.0));
}

Link &HotUpdateDriver::linkFor(int fromNode, int toNode) {
    auto &link = m_links[{fromNode, toNode}];
    if (!link)
        link = std::make_unique<Link>(m_geo.between(fromNode, toNode),
                                      m_o.seed * 7919ULL + std::uint64_t(fromNode) * 4099ULL + std::uint64_t(toNode));
    return *link;
}

double HotUpdateDriver::linkFreeAt(int fromNode, int toNode) {
    if (fromNode == toNode)
        return m_loop.now();
    return std::max(m_loop.now(), linkFor(fromNode, toNode).busyUntil());
}

std::uint64_t HotUpdateDriver::codeValues(RowDelta &values, int fromNode, int toNode) const {
    if (fromNode == toNode)
        return values.wireBytes();
    // The classifier is one small dense shard every edge reads whole: fp32.
    return codeRowValues(values, isEmbedding(values.shard) ? m_valuesCodec : CodecSpec{});
}

void HotUpdateDriver::countEmbedding(int shard, std::uint64_t bytes, double valueBytes) {
    if (!isEmbedding(shard))
        return;
    const auto &spec = m_plan.shards[std::size_t(shard)];
    m_r.sparseEmbeddingBytes += bytes;
    m_r.wholeShardEmbeddingBytes +=
        16 + std::uint64_t(double(spec.rowEnd - spec.rowBegin) * double(m_o.dim) * valueBytes);
}

void HotUpdateDriver::send(int fromNode, int toNode, std::uint64_t bytes, Traffic traffic,
                           std::function<void()> deliver) {
    if (fromNode == toNode) { // an owner's own edge: no wire, no bytes
        m_loop.after(0.0, std::move(deliver));
        return;
    }
    switch (traffic) {
    case Traffic::Gradient: m_r.gradientBytes += bytes; break;
    case Traffic::Publish: m_r.publishBytes += bytes; break;
    case Traffic::OwnerToOwner: m_r.ownerToOwnerBytes += bytes; break;
    case Traffic::Center: m_r.centerBytes += bytes; break;
    case Traffic::CatchUp: m_r.catchUpBytes += bytes; break;
    }
    const auto arrival = linkFor(fromNode, toNode).send(m_loop.now(), bytes);
    if (!arrival) {
        if (traffic == Traffic::Publish)
            ++m_r.publishesLost;
        return;
    }
    m_loop.at(*arrival, std::move(deliver));
}

std::vector<std::size_t> HotUpdateDriver::drawBatch(int edge) {
    auto &rng = m_rng[std::size_t(edge)];
    const auto &pool = m_pool[std::size_t(edge)];
    if (pool.empty())
        throw ConfigError("edges", "edge " + std::to_string(edge) + " has no training texts: " +
                                       std::to_string(m_train.size()) + " texts for " +
                                       std::to_string(m_shape.edgeCount()) + " edges");
    const bool seesNew = m_shape.regionOfEdge[std::size_t(edge)] == m_o.newLanguageRegion &&
                         m_loop.now() >= m_o.newLanguageAt && !m_newPool.empty();
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::vector<std::size_t> batch;
    for (int i = 0; i < m_o.batch; ++i) {
        if (seesNew && coin(rng) < m_o.newLanguageShare)
            batch.push_back(m_newPool[std::uniform_int_distribution<std::size_t>(0, m_newPool.size() - 1)(rng)]);
        else
            batch.push_back(pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]);
    }
    return batch;
}

void HotUpdateDriver::scheduleStep(int edge, double delay) {
    // One pending step per edge: a newer schedule cancels the older one.
    const auto generation = ++m_stepGeneration[std::size_t(edge)];
    m_loop.after(delay, [this, edge, generation] {
        if (m_stepGeneration[std::size_t(edge)] == generation)
            edgeStep(edge);
    });
}

void HotUpdateDriver::edgeStep(int edge) {
    if (m_loop.now() >= m_o.duration)
        return;
    auto &node = *m_edges[std::size_t(edge)];
    auto &deferred = m_deferred[std::size_t(edge)];
    std::vector<std::size_t> batchIds = deferred.empty() ? drawBatch(edge) : deferred;
    deferred.clear();
    const TextBatch batch = makeBatch(m_train, batchIds);

    // The lag guard: a shard this batch uses whose publishes this edge knows it
    // missed more than the bound allows waits for a catch-up first.
    if (!m_o.breakLagGuard) {
        std::vector<bool> uses(std::size_t(node.shardCount()), false);
        const auto *idx = batch.indices.data_ptr<std::int64_t>();
        for (std::int64_t i = 0; i < batch.indices.numel(); ++i)
            uses[std::size_t(m_table->shardOf(idx[i]))] = true;
        uses[std::size_t(m_classifierShard)] = true;
        bool wait = false;
        for (int s = 0; s < node.shardCount(); ++s) {
            if (!uses[std::size_t(s)] || node.missed(s) <= std::uint64_t(m_lagBound))
                continue;
            wait = true;
            // A catch-up whose request or answer was lost is asked again.
            if (!node.catchUpDue(s, m_loop.now(), m_o.catchUpTimeout))
                continue;
            node.askCatchUp(s, m_loop.now());
            ++m_r.catchUps;
            const int region = m_shape.regionOfEdge[std::size_t(edge)];
            const int ownerNode = ownerEdge(region, s) + 1;
            const std::uint64_t since = node.contiguous(s);
            send(edge + 1, ownerNode, 24, Traffic::CatchUp, [this, edge, region, s, since, ownerNode] {
                auto [values, seq] = owner(region, s).catchUp(since);
                const auto bytes = codeValues(values, ownerNode, edge + 1);
                if (ownerNode != edge + 1)
                    countEmbedding(s, bytes, bytesPerValue(m_valuesCodec, m_o.dim));
                send(ownerNode, edge + 1, bytes, Traffic::CatchUp, [this, edge, s, seq, values] {
                    m_edges[std::size_t(edge)]->catchUpAnswered(s);
                    edgeReceivePublish(edge, s, 1, seq, seq, values);
                    // A step waiting for this answer runs now, not a whole interval later.
                    if (!m_deferred[std::size_t(edge)].empty())
                        scheduleStep(edge, 0.0);
                });
            });
        }
        if (wait) {
            ++m_r.stepsDeferred;
            deferred = std::move(batchIds);
            scheduleStep(edge, m_o.catchUpTimeout); // or sooner, when the answer comes
            return;
        }
    }

    const auto g = node.gradients(batch);
    {
        const auto rows = g.rows.contiguous();
        auditRows(edge, std::vector<std::int64_t>(rows.data_ptr<std::int64_t>(),
                                                  rows.data_ptr<std::int64_t>() + rows.numel()));
    }
    node.addBatch(g.rows, g.rowGrads, g.classifierGrad);
    ++m_r.steps;
    m_r.samples += batchIds.size();
    if (++m_edgeSteps[std::size_t(edge)] % std::uint64_t(m_o.windowSteps) == 0) {
        const int region = m_shape.regionOfEdge[std::size_t(edge)];
        for (auto &w : node.takeWindow()) {
            RowDelta wire;
            wire.rows = w.rows;
            // The version each row held when the window was sent: what a real
            // message would carry for the owner to spot stale gradients (the
            // owner here does not use it; it is charged on the wire).
            wire.versions.reserve(w.rows.size());
            for (auto r : w.rows)
                wire.versions.push_back(node.version(w.shard, r));
            wire.values = w.grads;
            const auto bytes = wire.wireBytes();
            const int shard = w.shard;
            if (ownerEdge(region, shard) != edge)
                countEmbedding(shard, bytes, 4.0); // gradients travel fp32
            send(edge + 1, ownerEdge(region, shard) + 1, bytes, Traffic::Gradient,
                 [this, region, shard, rows = std::move(w.rows), grads = w.grads] {
                     owner(region, shard).addGradients(rows, grads);
                 });
        }
    }
    // Compute model: the step's FLOPs at this edge's speed, or the data's pace.
    const double flops = 6.0 * double(node.shape().forwardMacs(batch.indices.numel() / std::max<std::int64_t>(1, batch.offsets.numel()))) *
                         double(batchIds.size());
    const double gflops = m_shape.edgeGflops[std::size_t(edge)];
    scheduleStep(edge, std::max(m_o.stepInterval, flops / (gflops * 1e9)));
}

void HotUpdateDriver::ownerPublish(int region, int shard, const std::vector<std::int64_t> &rows, std::uint64_t seq) {
    if (isEmbedding(shard)) {
        auto &history = m_rowHistory[std::size_t(region)];
        auto &first = m_firstChangedAt[std::size_t(region)];
        for (auto r : rows) {
            history[std::size_t(r)].push_back(seq);
            if (first[std::size_t(r)] < 0)
                first[std::size_t(r)] = m_loop.now();
        }
    }
    const int from = ownerEdge(region, shard) + 1;
    for (int edge : m_shape.edgesOfRegion[std::size_t(region)]) {
        auto &box = m_publishOut[{region, shard, edge}];
        box.rows.insert(rows.begin(), rows.end());
        if (queueNumber(box, seq))
            m_loop.at(linkFreeAt(from, edge + 1), [this, region, shard, edge] { flushPublish(region, shard, edge); });
    }
}

void HotUpdateDriver::flushPublish(int region, int shard, int edge) {
    auto &box = m_publishOut[{region, shard, edge}];
    box.scheduled = false;
    if (box.rows.empty())
        return;
    const int fromNode = ownerEdge(region, shard) + 1;
    const auto &spec = m_plan.shards[std::size_t(shard)];
    const std::int64_t base = isEmbedding(shard) ? spec.rowBegin : 0;
    if (box.sentEver.empty())
        box.sentEver.assign(std::size_t(isEmbedding(shard) ? spec.rowEnd - spec.rowBegin : m_corpus.classCount()), false);
    // What fits in the budget: everything (then the message covers the
    // publish numbers queued), or rows this edge was never sent first, then
    // the rest, and the message covers no number (the rest stays queued).
    const double bandwidth = fromNode == edge + 1 ? 1e18 : linkFor(fromNode, edge + 1).spec().bandwidthBitsPerSecond;
    const auto budgetRows = std::max<std::uint64_t>(
        64, std::uint64_t(bandwidth / 8.0 * m_o.publishBudgetSeconds /
                          (4.0 + bytesPerValue(m_valuesCodec, m_o.dim) * double(m_o.dim))));
    std::vector<std::int64_t> rows;
    bool whole = box.rows.size() <= budgetRows;
    if (whole) {
        rows.assign(box.rows.begin(), box.rows.end());
        box.rows.clear();
    } else {
        // Rows this edge was never sent, the most recently created first (a
        // new word beats a refresh: every edge started from the same model),
        // then refreshes in row order.
        std::vector<std::pair<double, std::int64_t>> fresh;
        for (auto r : box.rows)
            if (!box.sentEver[std::size_t(r - base)])
                fresh.emplace_back(isEmbedding(shard) ? -m_firstChangedAt[std::size_t(region)][std::size_t(r)] : 0.0, r);
        std::sort(fresh.begin(), fresh.end());
        for (const auto &f : fresh) {
            if (rows.size() >= budgetRows)
                break;
            rows.push_back(f.second);
        }
        for (auto r : box.rows) {
            if (rows.size() >= budgetRows)
                break;
            if (box.sentEver[std::size_t(r - base)])
                rows.push_back(r);
        }
        std::sort(rows.begin(), rows.end());
        for (auto r : rows)
            box.rows.erase(r);
        ++m_r.publishesSplit;
    }
    for (auto r : rows)
        box.sentEver[std::size_t(r - base)] = true;
    auto values = owner(region, shard).rows().snapshot(rows, shard);
    const auto valueBytes = codeValues(values, fromNode, edge + 1);
    box.split = box.split || !whole;
    const bool claims = whole && !box.split;
    const std::uint64_t from = claims ? box.from : 0;
    const std::uint64_t to = claims ? box.to : 0;
    const std::uint64_t latest = owner(region, shard).publishSeq();
    if (whole)
        box.from = box.to = 0;
    if (box.rows.empty())
        box.split = false; // the next backlog starts clean; the edge's catch-up covers this one
    const auto bytes = valueBytes + 16; // plus the range of publish numbers
    if (fromNode != edge + 1)
        countEmbedding(shard, bytes, bytesPerValue(m_valuesCodec, m_o.dim));
    send(fromNode, edge + 1, bytes, Traffic::Publish,
         [this, edge, shard, from, to, latest, values] { edgeReceivePublish(edge, shard, from, to, latest, values); });
    if (!box.rows.empty()) {
        box.scheduled = true;
        m_loop.at(linkFreeAt(fromNode, edge + 1), [this, region, shard, edge] { flushPublish(region, shard, edge); });
    }
}

void HotUpdateDriver::edgeReceivePublish(int edge, int shard, std::uint64_t from, std::uint64_t to,
                                         std::uint64_t latest, const RowDelta &values) {
    const auto taken = m_edges[std::size_t(edge)]->receivePublish(shard, from, to, latest, values);
    m_r.staleRowsIgnored += values.rows.size() - taken;
    if (isEmbedding(shard))
        m_presence->edgeHolds(edge, values.rows, values.versions, m_loop.now());
}

void HotUpdateDriver::ownerMerge(int region, int shard) {
    auto &o = owner(region, shard);
    if (!o.hasPending())
        return;
    const int contributors = int(m_shape.edgesOfRegion[std::size_t(region)].size());
    auto prepared = o.prepare(m_o.lr, contributors);
    if (isEmbedding(shard))
        m_presence->ownMerge(region, prepared.seq, prepared.change.rows, m_loop.now());
    if (m_o.hotUpdates)
        ownerSendChange(region, shard, prepared.seq, prepared.change);
    auto apply = [this, region, shard, prepared = std::move(prepared)] {
        auto &o = owner(region, shard);
        const auto m = o.applyOwn(prepared);
        if (isEmbedding(shard))
            m_presence->ownerApplied(region, m.publish.rows, m.publish.versions, o.frontier(), m_loop.now());
        ownerPublish(region, shard, m.publish.rows, m.publishSeq);
    };
    // With hot updates, the region applies its own change when it reaches the
    // farthest other region's owner: every copy then moves at about the same
    // time, and no region runs ahead on its own data.
    const double hold = m_o.hotUpdates && m_o.holdOwnChanges ? m_holdBack[std::size_t(region)][std::size_t(shard)] : 0.0;
    if (hold > 0)
        m_loop.after(hold, std::move(apply));
    else
        apply();
}

void HotUpdateDriver::ownerSendChange(int region, int shard, std::uint64_t seq, const RowDelta &change) {
    const int from = ownerEdge(region, shard) + 1;
    for (int q = 0; q < m_shape.regionCount(); ++q) {
        if (q == region)
            continue;
        auto &box = m_changeOut[{region, shard, q}];
        box.rows.insert(box.rows.end(), change.rows.begin(), change.rows.end());
        box.values.push_back(change.values);
        if (queueNumber(box, seq))
            m_loop.at(linkFreeAt(from, ownerEdge(q, shard) + 1), [this, region, shard, q] { flushChange(region, shard, q); });
    }
}

void HotUpdateDriver::flushChange(int region, int shard, int toRegion) {
    auto &box = m_changeOut[{region, shard, toRegion}];
    RowDelta change;
    change.shard = shard;
    {
        // Changes are additive: what queued sums into one (rows sorted, unique).
        torch::NoGradGuard noGrad;
        const auto values = torch::cat(box.values);
        auto index = torch::from_blob(box.rows.data(), {1, std::int64_t(box.rows.size())}, torch::kInt64).clone();
        const std::int64_t extent = *std::max_element(box.rows.begin(), box.rows.end()) + 1;
        const auto summed = torch::sparse_coo_tensor(index, values, {extent, values.size(1)}).coalesce();
        const auto idx = summed.indices().select(0, 0).contiguous();
        change.rows.assign(idx.data_ptr<std::int64_t>(), idx.data_ptr<std::int64_t>() + idx.numel());
        change.values = summed.values().clone();
        change.versions.assign(change.rows.size(), 0);
    }
    const std::uint64_t from = box.from;
    const std::uint64_t to = box.to;
    box = ChangeOutbox{};
    const auto bytes = change.wireBytes() + 24; // plus origin and the range of sequence numbers
    countEmbedding(shard, bytes, 4.0); // changes travel fp32
    send(ownerEdge(region, shard) + 1, ownerEdge(toRegion, shard) + 1, bytes, Traffic::OwnerToOwner,
         [this, toRegion, shard, region, from, to, change] { ownerReceiveChange(toRegion, shard, region, from, to, change); });
}

void HotUpdateDriver::ownerReceiveChange(int region, int shard, int origin, std::uint64_t from, std::uint64_t to,
                                         const RowDelta &change) {
    auto &o = owner(region, shard);
    for (auto &applied : o.receiveChange(origin, from, to, change)) {
        if (isEmbedding(shard))
            m_presence->ownerApplied(region, applied.publish.rows, applied.publish.versions, o.frontier(), m_loop.now());
        ownerPublish(region, shard, applied.publish.rows, applied.publishSeq);
    }
}

void HotUpdateDriver::ownerCenterSync(int region, int shard) {
    auto &o = owner(region, shard);
    auto changes = o.unreported(); // sent again until the center confirms them
    const auto frontier = o.frontier();
    std::uint64_t bytes = 16 + 8 * frontier.size();
    for (const auto &c : changes)
        bytes += c.second.wireBytes() + 8;
    const int from = ownerEdge(region, shard) + 1;
    send(from, 0, bytes, Traffic::Center, [this, region, shard, from, changes = std::move(changes), frontier] {
        auto answer = m_center->report(region, shard, changes, frontier);
        send(0, from, answer.bytes, Traffic::Center, [this, region, shard, answer = std::move(answer)] {
            owner(region, shard).acknowledge(answer.acknowledged);
            m_lastCenterSync[std::size_t(region)][std::size_t(shard)] = m_loop.now();
            for (const auto &m : answer.missing)
                ownerReceiveChange(region, shard, m.origin, m.seq, m.seq, m.change);
        });
    });
}

void HotUpdateDriver::auditRows(int edge, const std::vector<std::int64_t> &rows) {
    auto &node = *m_edges[std::size_t(edge)];
    const int region = m_shape.regionOfEdge[std::size_t(edge)];
    const auto &history = m_rowHistory[std::size_t(region)];
    for (auto r : rows) {
        const int shard = m_table->shardOf(r);
        // The newest publish of this shard the edge has seen.
        const std::uint64_t newest = node.newestSeen(shard);
        const auto &h = history[std::size_t(r)];
        const auto ownerVersion = std::uint64_t(std::upper_bound(h.begin(), h.end(), newest) - h.begin());
        const auto held = node.version(shard, r);
        const std::uint64_t lag = ownerVersion > held ? ownerVersion - held : 0;
        m_r.maxLagSeen = std::max(m_r.maxLagSeen, lag);
        if (lag > std::uint64_t(m_lagBound))
            ++m_r.lagViolations;
    }
}

void HotUpdateDriver::evaluate() {
    HotUpdateResult::EvalPoint p;
    p.time = m_loop.now();
    for (int q = 0; q < m_shape.regionCount(); ++q) {
        auto &probe = *m_edges[std::size_t(m_probe[std::size_t(q)])];
        const auto logits = [&probe](const TextBatch &batch) { return probe.logits(batch); };
        const int classes = int(m_corpus.classCount());
        p.newLanguage.push_back(evaluateTexts(logits, m_newLanguageTest, classes).accuracy);
        p.overall.push_back(evaluateTexts(logits, m_overallTest, classes).accuracy);
    }
    if (m_r.caughtUpAfter < 0 && p.time >= m_o.newLanguageAt) {
        const double origin = p.newLanguage[std::size_t(m_o.newLanguageRegion)];
        bool within = origin >= 0.5;
        for (int q = 0; q < m_shape.regionCount(); ++q)
            within = within && p.newLanguage[std::size_t(q)] >= origin - 0.02;
        if (within)
            m_r.caughtUpAfter = p.time - m_o.newLanguageAt;
    }
    m_r.evals.push_back(std::move(p));
}

void HotUpdateDriver::readControls() {
    if (!m_controls)
        return;
    const int bound = m_controls->lagBound.load(std::memory_order_relaxed);
    if (bound >= 0 && bound != m_lagBound) {
        m_lagBound = bound;
        m_r.lagBoundChanges.emplace_back(m_loop.now(), bound);
    }
    m_r.stopped = m_controls->stop.load(std::memory_order_relaxed);
}

HotUpdateFrame HotUpdateDriver::frame() {
    HotUpdateFrame f;
    f.virtualTime = m_loop.now();
    f.duration = m_o.duration;
    f.steps = m_r.steps;
    // Only what moved is written: an unchanged row keeps its pointer, so the
    // app's table repaints the rows that changed (DESIGN.md §6).
    const auto before = m_routing->snapshot();
    const int shards = int(m_plan.shards.size());
    for (int s = 0; s < shards; ++s) {
        const auto &row = *before->rows[std::size_t(s)];
        for (int q = 0; q < m_shape.regionCount(); ++q) {
            const auto v = owner(q, s).publishSeq();
            if (v != row.ownerVersion[std::size_t(q)] ||
                row.lastSync[std::size_t(q)] != m_lastCenterSync[std::size_t(q)][std::size_t(s)])
                m_routing->setOwnerVersion(s, q, v, m_lastCenterSync[std::size_t(q)][std::size_t(s)]);
        }
        for (int e = 0; e < m_shape.edgeCount(); ++e) {
            const auto v = m_edges[std::size_t(e)]->contiguous(s);
            if (v != row.cachedVersion[std::size_t(e)])
                m_routing->setCachedVersion(s, e, v);
        }
        const auto logged = m_center->logged(s);
        if (logged != row.centerVersion)
            m_routing->setCenterVersion(s, logged);
    }
    f.routing = m_routing->snapshot();
    auto held = std::make_shared<std::vector<std::vector<float>>>(std::size_t(shards));
    for (int s = 0; s < shards; ++s) {
        if (!isEmbedding(s))
            continue;
        auto &perEdge = (*held)[std::size_t(s)];
        for (const auto &edge : m_edges)
            perEdge.push_back(float(edge->heldShare(s)));
    }
    f.heldShare = std::move(held);
    auto times = m_presence->recentTimes(m_loop.now(), f.recentWindow);
    f.rowsDone = times.size();
    if (!times.empty()) {
        std::sort(times.begin(), times.end());
        auto at = [&](double q) {
            return times[std::min(times.size() - 1, std::size_t(std::ceil(q * double(times.size()))) - 1)];
        };
        f.presenceP50 = at(0.5);
        f.presenceP99 = at(0.99);
    }
    f.recentRowsHeldShare = m_presence->recentHeldShare(m_loop.now(), f.recentWindow);
    f.lagBound = m_lagBound;
    f.catchUps = m_r.catchUps;
    f.stepsDeferred = m_r.stepsDeferred;
    f.lagViolations = m_r.lagViolations;
    if (!m_r.evals.empty()) {
        f.evalTime = m_r.evals.back().time;
        f.newLanguageAccuracy = m_r.evals.back().newLanguage;
    }
    return f;
}

HotUpdateResult HotUpdateDriver::run(const HotUpdateHooks &hooks) {
    const auto &progress = hooks.progress;
    m_controls = hooks.controls;
    m_r.valuesCodec = codecName(m_valuesCodec);
    m_keepRecent = bool(hooks.frame);
    const auto wallStart = std::chrono::steady_clock::now();
    // Stopped while setting up (an app closing the window during warm-up):
    // nothing was measured.
    auto stoppedEarly = [&] {
        readControls();
        if (m_r.stopped)
            m_r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
        return m_r.stopped;
    };
    if (stoppedEarly())
        return m_r;
    buildData();
    if (stoppedEarly())
        return m_r;
    buildNodes();
    if (stoppedEarly())
        return m_r;
    m_r.hotUpdates = m_o.hotUpdates;
    for (const auto &r : m_config.regions)
        m_r.regions.push_back(r.name);
    m_r.edges = m_shape.edgeCount();

    const int edges = m_shape.edgeCount();
    for (int e = 0; e < edges; ++e) // staggered starts, so windows do not all land at once
        scheduleStep(e, m_o.stepInterval * double(e) / double(edges));
    // Owners merge once per window, half a window after the edges send.
    const double window = m_o.stepInterval * m_o.windowSteps;
    for (double t = window * 1.5; t < m_o.duration; t += window)
        m_loop.at(t, [this] {
            for (int q = 0; q < m_shape.regionCount(); ++q)
                for (int s = 0; s < int(m_plan.shards.size()); ++s)
                    ownerMerge(q, s);
        });
    const double syncPeriod = window * m_o.centerSyncWindows;
    m_r.windowSeconds = window;
    m_r.centerSyncPeriod = syncPeriod;
    for (double t = syncPeriod; t < m_o.duration; t += syncPeriod)
        m_loop.at(t, [this] {
            for (int q = 0; q < m_shape.regionCount(); ++q)
                for (int s = 0; s < int(m_plan.shards.size()); ++s)
                    ownerCenterSync(q, s);
        });
    for (double t = 0; t <= m_o.duration + 1e-9; t += m_o.evalEvery)
        m_loop.at(t, [this] { evaluate(); });

    double nextReport = 0;
    double nextFrame = 0;
    readControls();
    while (!m_r.stopped && !m_loop.empty() && m_loop.nextTime() <= m_o.duration + 1e-9) {
        m_loop.step();
        readControls();
        if (progress && m_loop.now() >= nextReport) {
            progress({m_loop.now(), m_o.duration, m_r.steps});
            nextReport = m_loop.now() + 0.25;
        }
        if (hooks.frame && m_loop.now() >= nextFrame) {
            hooks.frame(frame());
            nextFrame = m_loop.now() + std::max(1e-3, hooks.frameEvery);
        }
    }
    if (hooks.frame)
        hooks.frame(frame()); // the end state
    // A stopped run measured up to now, not to the planned end.
    const double end = m_r.stopped ? m_loop.now() : m_o.duration;

    // Edges behind a slow last mile are the tail; the p99 without them says
    // what the rest of the cluster sees.
    std::vector<bool> slow(std::size_t(edges), false);
    for (int e = 0; e < edges; ++e) {
        const auto &mile = m_geo.lastMile(e);
        slow[std::size_t(e)] = mile.has_value();
        if (mile)
            m_r.slowEdges.push_back(e);
    }
    const auto presence = m_presence->summarize(end, end - syncPeriod * 2.0, slow);
    m_r.presenceP99WithoutSlowEdges = presence.p99Excluding;
    m_r.presenceMeanByEdge = presence.meanByEdge;
    m_r.rowsTracked = presence.tracked;
    m_r.rowsUnresolved = presence.unresolved;
    m_r.presenceP50 = presence.p50;
    m_r.presenceP99 = presence.p99;
    m_r.presenceMax = presence.max;
    double held = 0;
    m_r.heldShareMin = 1.0;
    for (const auto &e : m_edges) {
        held += e->heldShare();
        m_r.heldShareMin = std::min(m_r.heldShareMin, e->heldShare());
    }
    m_r.heldShareMean = held / double(m_edges.size());
    std::uint64_t bytes = 0;
    for (const auto &e : m_edges) {
        bytes += e->held().bytes();
        m_r.edgeTableBytesMax = std::max(m_r.edgeTableBytesMax, e->held().bytes());
    }
    m_r.edgeTableBytesMean = bytes / m_edges.size();
    m_r.denseTableBytes = m_edges.front()->held().denseBytes();
    for (const auto &region : m_owners)
        for (const auto &o : region)
            m_r.overlapsDropped += o->overlapsDropped();
    m_r.virtualSeconds = end;
    m_r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return m_r;
}

} // namespace

HotUpdateResult runHotUpdateScenario(const ClusterConfig &config, const data::TextCorpus &corpus,
                                     const HotUpdateOptions &options, const HotUpdateHooks &hooks) {
    HotUpdateDriver driver(config, corpus, options);
    return driver.run(hooks);
}

HotUpdateResult runHotUpdateScenario(const ClusterConfig &config, const data::TextCorpus &corpus,
                                     const HotUpdateOptions &options,
                                     const std::function<void(const HotUpdateProgress &)> &progress) {
    HotUpdateHooks hooks;
    hooks.progress = progress;
    return runHotUpdateScenario(config, corpus, options, hooks);
}

} // namespace synaptic::engine
