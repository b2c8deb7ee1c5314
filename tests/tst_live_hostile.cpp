// Hostile input to a live cluster (issue 13 §8, Done when): malformed
// messages, wrong tensor shapes and dtypes, NaN/Inf gradients, stale
// versions, replayed lease epochs, oversized messages, unknown shards and
// nodes, a flood of calls, no token, a wrong token and plaintext to a TLS
// port, each sent by a real gRPC client to the Peer service of a real node
// process (an edge, and the center where the input applies). Each is
// refused with its status; what our code refuses is counted in a
// RejectedInputEvent the app shows; and afterwards the node still answers
// a classification and every shard version in the center's routing table
// is what it was before the attack.
//
// The cluster trains a few steps and stops moving (the center stays up
// without --exit-when-done), so any version that changes was changed by an
// attack.
#include "support/live_cluster_fixture.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/sim/node_report.h"
#include "core/rpc/live/server_setup.h"
#include "core/rpc/security/security_options.h"
#include "core/rpc/wire/message_codec.h"

#include "events.pb.h"

#include <ATen/ATen.h>
#include <grpcpp/generic/generic_stub.h>

#include <QtTest>

#include <atomic>
#include <future>
#include <limits>
#include <thread>

using namespace synaptic;
using engine::LeaseEvent;
using engine::RejectedInputEvent;
using engine::SimEvent;
using test::LiveCluster;
using K = engine::MessageKind;
using Code = grpc::StatusCode;

Q_DECLARE_METATYPE(grpc::StatusCode)

namespace {

constexpr int kSteps = 6;
constexpr int kEventMs = 15000;      // a refusal reaches the Control stream well within this
constexpr int kSettleMs = 400;       // > an edge's report interval + the center's tick
constexpr int kUnknownShard = 100000;
constexpr int kUnknownNode = 99;
constexpr int kUnknownKind = 99;
constexpr int kUnknownDtype = 7;

std::chrono::system_clock::time_point inSeconds(int s) {
    return std::chrono::system_clock::now() + std::chrono::seconds(s);
}

// A test image as the dataset files hold it.
std::string testImage(int index) {
    static const auto set = data::loadFashionMnist(data::resolveDataDir(""), data::Split::Test, 16);
    return std::string(reinterpret_cast<const char *>(set.pixels.data()) + index * data::kImagePixels,
                       data::kImagePixels);
}

QString codeName(Code c) {
    switch (c) {
    case Code::OK: return "OK";
    case Code::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case Code::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case Code::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case Code::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case Code::UNAVAILABLE: return "UNAVAILABLE";
    case Code::INTERNAL: return "INTERNAL";
    case Code::UNKNOWN: return "UNKNOWN";
    case Code::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    default: return QString::number(int(c));
    }
}

QString describeStatus(const grpc::Status &s) {
    return codeName(s.error_code()) + ": " + QString::fromStdString(s.error_message());
}

// Every shard's versions as one text (owners, owner versions, center
// version, the version each edge caches): what no attack may change.
QString versionsText(const session::pb::RoutingState &r) {
    QStringList lines;
    for (const auto &row : r.rows()) {
        QStringList owners, ownerVersions, cached;
        for (int o : row.owner())
            owners << QString::number(o);
        for (auto v : row.owner_version())
            ownerVersions << QString::number(v);
        for (auto v : row.cached_version())
            cached << QString::number(v);
        lines << QString("shard %1: owners %2, owner versions %3, center %4, cached %5")
                     .arg(row.id())
                     .arg(owners.join(','), ownerVersions.join(','))
                     .arg(row.center_version())
                     .arg(cached.join(','));
    }
    return lines.join('\n');
}

// Refusals `node` reported for a reason containing `reason`, in events from `from` on.
std::uint64_t refusals(const std::vector<SimEvent> &events, std::size_t from, int node, const QString &reason) {
    std::uint64_t n = 0;
    for (std::size_t i = from; i < events.size(); ++i)
        if (const auto *r = std::get_if<RejectedInputEvent>(&events[i]))
            if (r->node == node && QString::fromStdString(r->reason).contains(reason))
                n += r->count;
    return n;
}

QString refusalsText(const std::vector<SimEvent> &events, std::size_t from) {
    QStringList out;
    for (std::size_t i = from; i < events.size(); ++i)
        if (const auto *r = std::get_if<RejectedInputEvent>(&events[i]))
            out << QString("node %1: %2 x%3").arg(r->node).arg(QString::fromStdString(r->reason)).arg(r->count);
    return out.isEmpty() ? "no refusals" : out.join("; ");
}

int countOf(const QString &text, const QString &needle) { return int(text.count(needle)); }

} // namespace

class LiveHostileTest : public QObject {
    Q_OBJECT

    std::unique_ptr<LiveCluster> m_cluster;
    QString m_versionsBefore;
    std::vector<std::int64_t> m_shardSize;
    int m_target = -1;          // the attacked edge (0-based edge index) ...
    int m_peer = -1;            // ... and the other edge of its region, whose messages are forged
    int m_targetShard = -1;     // a shard the target owns
    int m_peerShard = -1;       // a shard the peer owns, cached at the target at m_cachedAtTarget
    std::uint64_t m_cachedAtTarget = 0;
    std::uint64_t m_peerEpoch = 0;     // the peer's current lease epoch
    std::uint64_t m_peerFirstEpoch = 0; // the first epoch it trained under
    int m_otherRegionEdge = -1; // an edge of another region

    int targetNode() const { return m_target + 1; }
    int peerNode() const { return m_peer + 1; }
    QString nodeName(int node) const { return node == 0 ? "center" : m_cluster->edgeNames()[node - 1]; }
    QString addressOf(int node) const {
        return node == 0 ? m_cluster->centerAddress() : m_cluster->edgeAddress(nodeName(node));
    }
    QString logOf(int node) const {
        return node == 0 ? m_cluster->centerLog() : m_cluster->edgeLog(nodeName(node));
    }

    bool routing(session::pb::RoutingState &out) {
        auto stub = v1::Control::NewStub(m_cluster->channelTo(m_cluster->centerAddress()));
        grpc::ClientContext ctx;
        ctx.set_deadline(inSeconds(10));
        return stub->Routing(&ctx, v1::DescribeRequest{}, &out).ok();
    }

    // ---- messages ------------------------------------------------------------

    at::Tensor zeros(int shard) const { return at::zeros({m_shardSize[std::size_t(shard)]}, at::kFloat); }

    // A well-formed gradient from the peer to the target for the target's
    // shard, stamped as the peer stamps its own (the codec makes the bytes).
    engine::Message gradients(at::Tensor data) const {
        engine::Message m;
        m.kind = K::Gradients;
        m.from = peerNode();
        m.to = targetNode();
        m.origin = m_peer;
        m.round = 1000;
        m.lease = {m_peerEpoch, 1e9};
        engine::ShardItem item;
        item.shard = m_targetShard;
        item.version = m_cachedAtTarget;
        item.data = std::move(data);
        item.contributionIds = {engine::contributionId(m_peer, 1, 0xBEEF)};
        m.shards.push_back(std::move(item));
        return m;
    }

    // A region owner's shard delta for the center, from the target.
    engine::Message centerDelta(at::Tensor data, int shard = -1) const {
        engine::Message m;
        m.kind = K::CenterDelta;
        m.from = targetNode();
        m.to = engine::kCenterNode;
        engine::ShardItem item;
        item.shard = shard < 0 ? m_targetShard : shard;
        item.version = 1;
        item.data = std::move(data);
        m.shards.push_back(std::move(item));
        return m;
    }

    engine::Message heartbeat(int from, std::uint64_t epoch) const {
        engine::Message m;
        m.kind = K::Heartbeat;
        m.from = from;
        m.to = engine::kCenterNode;
        m.lease = {epoch, 1e9};
        return m;
    }

    // The hostile message named `what` (a row of hostileMessage_data) for `node`.
    v1::NodeMessage hostile(const QString &what, int node) const {
        const auto n = m_shardSize[std::size_t(m_targetShard)];
        if (node == engine::kCenterNode) {
            if (what == "unknown kind") {
                auto p = rpc::toProto(heartbeat(peerNode(), m_peerEpoch));
                p.set_kind(v1::MessageKind(kUnknownKind));
                return p;
            }
            if (what == "wrong shape")
                return rpc::toProto(centerDelta(at::zeros({n + 1}, at::kFloat)));
            if (what == "float16 delta")
                return rpc::toProto(centerDelta(at::zeros({n}, at::kHalf)));
            if (what == "NaN delta") {
                auto d = zeros(m_targetShard);
                d[3] = std::numeric_limits<float>::quiet_NaN();
                return rpc::toProto(centerDelta(d));
            }
            if (what == "unknown shard")
                return rpc::toProto(centerDelta(at::zeros({4}, at::kFloat), kUnknownShard));
            if (what == "unknown sender")
                return rpc::toProto(heartbeat(kUnknownNode, 1));
            if (what == "addressed to another node") {
                auto m = heartbeat(peerNode(), m_peerEpoch);
                m.to = targetNode();
                return rpc::toProto(m);
            }
            if (what == "replayed lease epoch")
                return rpc::toProto(heartbeat(peerNode(), m_peerFirstEpoch - 1));
            if (what == "gradients to the center") {
                auto m = gradients(zeros(m_targetShard));
                m.to = engine::kCenterNode;
                return rpc::toProto(m);
            }
            qFatal("no center message %s", qPrintable(what));
        }
        if (what == "unknown kind") {
            auto p = rpc::toProto(gradients(zeros(m_targetShard)));
            p.set_kind(v1::MessageKind(kUnknownKind));
            return p;
        }
        if (what == "data shorter than its shape") {
            auto p = rpc::toProto(gradients(zeros(m_targetShard)));
            p.mutable_shards(0)->mutable_data()->mutable_data()->resize(std::size_t(n - 1) * 4);
            return p;
        }
        if (what == "unknown dtype") {
            auto p = rpc::toProto(gradients(zeros(m_targetShard)));
            p.mutable_shards(0)->mutable_data()->set_dtype(v1::Tensor::DType(kUnknownDtype));
            return p;
        }
        if (what == "negative dimension") {
            auto p = rpc::toProto(gradients(zeros(m_targetShard)));
            p.mutable_shards(0)->mutable_data()->set_shape(0, -n);
            return p;
        }
        if (what == "negative shard id") {
            auto p = rpc::toProto(gradients(zeros(m_targetShard)));
            p.mutable_shards(0)->set_shard(-1);
            return p;
        }
        if (what == "wrong shape: too few values")
            return rpc::toProto(gradients(at::zeros({n - 1}, at::kFloat)));
        if (what == "wrong shape: a matrix")
            return rpc::toProto(gradients(at::zeros({1, n}, at::kFloat)));
        if (what == "wrong dtype: float16")
            return rpc::toProto(gradients(at::zeros({n}, at::kHalf)));
        if (what == "wrong dtype: int8")
            return rpc::toProto(gradients(at::zeros({n}, at::kChar)));
        if (what == "NaN gradient" || what == "+Inf gradient" || what == "-Inf gradient") {
            auto g = zeros(m_targetShard);
            g[n / 2] = what == "NaN gradient"    ? std::numeric_limits<float>::quiet_NaN()
                       : what == "+Inf gradient" ? std::numeric_limits<float>::infinity()
                                                 : -std::numeric_limits<float>::infinity();
            return rpc::toProto(gradients(g));
        }
        if (what == "stale version") {
            engine::Message m;
            m.kind = K::Values;
            m.from = peerNode();
            m.to = targetNode();
            m.lease = {m_peerEpoch, 1e9};
            engine::ShardItem item;
            item.shard = m_peerShard;
            item.version = 1;
            item.data = zeros(m_peerShard);
            m.shards.push_back(std::move(item));
            return rpc::toProto(m);
        }
        if (what == "replayed lease epoch") {
            auto m = gradients(zeros(m_targetShard));
            m.lease.epoch = m_peerFirstEpoch - 1;
            return rpc::toProto(m);
        }
        if (what == "unknown shard") {
            auto m = gradients(at::zeros({4}, at::kFloat));
            m.shards[0].shard = kUnknownShard;
            return rpc::toProto(m);
        }
        if (what == "unknown sender") {
            auto m = gradients(zeros(m_targetShard));
            m.from = kUnknownNode;
            return rpc::toProto(m);
        }
        if (what == "addressed to another node") {
            auto m = gradients(zeros(m_targetShard));
            m.to = m_otherRegionEdge + 1;
            return rpc::toProto(m);
        }
        if (what == "heartbeat to an edge") {
            auto m = heartbeat(peerNode(), m_peerEpoch);
            m.to = targetNode();
            return rpc::toProto(m);
        }
        if (what == "lease grant from an edge") {
            engine::Message m;
            m.kind = K::LeaseGrant;
            m.from = peerNode();
            m.to = targetNode();
            m.lease = {1000, 1e9};
            return rpc::toProto(m);
        }
        if (what == "gradients spanning too many windows") {
            auto m = gradients(zeros(m_targetShard));
            m.shards[0].windows = 100000; // would scale the owner's step (capped there too)
            return rpc::toProto(m);
        }
        if (what == "gradients in another edge's name") {
            auto m = gradients(zeros(m_targetShard));
            m.shards[0].contributionIds = {engine::contributionId(m_peer == 0 ? 1 : 0, 1, 7)};
            return rpc::toProto(m);
        }
        if (what == "gradients without an origin") {
            auto m = gradients(zeros(m_targetShard));
            m.origin = -1;
            return rpc::toProto(m);
        }
        if (what == "catch-up request without an origin") {
            engine::Message m;
            m.kind = K::CatchUpRequest;
            m.from = peerNode();
            m.to = targetNode();
            m.lease = {m_peerEpoch, 1e9};
            return rpc::toProto(m);
        }
        qFatal("no edge message %s", qPrintable(what));
    }

    // ---- sending ---------------------------------------------------------------

    static grpc::Status deliver(const std::shared_ptr<grpc::Channel> &channel, const v1::NodeMessage &m) {
        auto stub = v1::Peer::NewStub(channel);
        grpc::ClientContext ctx;
        ctx.set_deadline(inSeconds(30));
        v1::DeliverReply reply;
        return stub->Deliver(&ctx, m, &reply);
    }

    static grpc::Status stream(const std::shared_ptr<grpc::Channel> &channel, const v1::NodeMessage &m) {
        auto stub = v1::Peer::NewStub(channel);
        grpc::ClientContext ctx;
        ctx.set_deadline(inSeconds(30));
        v1::StreamSummary summary;
        auto writer = stub->Stream(&ctx, &summary);
        writer->Write(m); // may fail once the server has refused it: Finish says why
        writer->WritesDone();
        return writer->Finish();
    }

    // Raw bytes to Peer.Deliver, as a client without our codec would send them.
    static grpc::Status deliverBytes(const std::shared_ptr<grpc::Channel> &channel, const std::string &bytes) {
        grpc::GenericStub stub(channel);
        grpc::ClientContext ctx;
        ctx.set_deadline(inSeconds(30));
        grpc::Slice slice(bytes);
        grpc::ByteBuffer request(&slice, 1), response;
        std::promise<grpc::Status> done;
        stub.UnaryCall(&ctx, "/synaptic.v1.Peer/Deliver", grpc::StubOptions(), &request, &response,
                       [&done](grpc::Status status) { done.set_value(std::move(status)); });
        return done.get_future().get();
    }

    // The same as a stream of one message (a peer's best-effort channel).
    static grpc::Status streamBytes(const std::shared_ptr<grpc::Channel> &channel, const std::string &bytes) {
        grpc::GenericStub stub(channel);
        grpc::ClientContext ctx;
        ctx.set_deadline(inSeconds(30));
        grpc::CompletionQueue queue;
        auto call = stub.PrepareCall(&ctx, "/synaptic.v1.Peer/Stream", &queue);
        auto step = [&queue](auto &&start) {
            void *tag = nullptr;
            bool ok = false;
            start(reinterpret_cast<void *>(1));
            queue.Next(&tag, &ok);
            return ok;
        };
        grpc::Slice slice(bytes);
        grpc::ByteBuffer request(&slice, 1), response;
        grpc::Status status;
        step([&](void *tag) { call->StartCall(tag); });
        // A write or its close may fail once the server has refused: Finish says why.
        step([&](void *tag) { call->Write(request, tag); });
        step([&](void *tag) { call->WritesDone(tag); });
        step([&](void *tag) { call->Finish(&status, tag); });
        queue.Shutdown();
        void *tag = nullptr;
        bool ok = false;
        while (queue.Next(&tag, &ok)) {
        }
        return status;
    }

    // ---- what every attack must leave as it was ----------------------------------

    // After an attack on `node`: it answers a classification of a real test
    // image (an edge answers itself or asks the center; the center answers
    // with its global model), which also means it has handled whatever was
    // queued before; a refusal for `reason` (empty: none expected) reaches
    // the Control stream exactly `count` times (the app's event log shows
    // these events); and once what the nodes may still report has arrived,
    // every shard version is as before the attacks.
    void checkAfter(int node, std::size_t from, const QString &reason = {}, std::uint64_t count = 0) {
        auto stub = v1::Inference::NewStub(m_cluster->channelTo(addressOf(node)));
        for (int i = 0; i < 2; ++i) {
            grpc::ClientContext ctx;
            ctx.set_deadline(inSeconds(20));
            v1::ClassifyRequest request;
            request.set_image(testImage(i));
            v1::ClassifyReply reply;
            const auto status = stub->Classify(&ctx, request, &reply);
            QVERIFY2(status.ok(), qPrintable(nodeName(node) + " does not answer: " + describeStatus(status) + "\n" +
                                             logOf(node).right(2000)));
            QVERIFY(reply.label() >= 0 && reply.label() < 10);
        }
        if (!reason.isEmpty()) {
            const bool seen = m_cluster->waitFor(
                [&](const auto &events) { return refusals(events, from, node, reason) >= count; }, kEventMs);
            QVERIFY2(seen, qPrintable(QString("no refusal \"%1\" from %2 in the Control stream; saw %3")
                                          .arg(reason, nodeName(node), refusalsText(m_cluster->events(), from))));
        }
        QThread::msleep(kSettleMs);
        if (!reason.isEmpty())
            QCOMPARE(refusals(m_cluster->events(), from, node, reason), count);
        session::pb::RoutingState now;
        QVERIFY(routing(now));
        QCOMPARE(versionsText(now), m_versionsBefore);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!QStandardPaths::findExecutable("openssl").isEmpty(), "openssl makes the test certificates");
        QVERIFY2(QFileInfo::exists(qEnvironmentVariable("SYNAPTIC_NODE")), "SYNAPTIC_NODE names synaptic-node");
        LiveCluster::Options o;
        o.config = QFINDTESTDATA("data/live_cluster.json");
        o.steps = kSteps;
        o.exitWhenDone = false; // the center stays up after the run: the nodes under attack
        m_cluster = std::make_unique<LiveCluster>(o);
        const QString error = m_cluster->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));

        // The run finishes (every edge used its budget, the final check ran) ...
        QElapsedTimer clock;
        clock.start();
        bool finished = false;
        while (!finished && clock.elapsed() < 240000) {
            v1::ClusterDescription d;
            finished = m_cluster->describe(d) && d.finished();
            if (!finished)
                QThread::msleep(250);
        }
        QVERIFY2(finished, qPrintable("the run did not finish:\n" + m_cluster->centerLog().right(3000)));
        // ... and the versions stop moving (the last syncs land): 3 s unchanged.
        QString last;
        QElapsedTimer stableFor;
        stableFor.start();
        while (clock.elapsed() < 300000 && stableFor.elapsed() < 3000) {
            session::pb::RoutingState r;
            QVERIFY(routing(r));
            const QString now = versionsText(r);
            if (now != last) {
                last = now;
                stableFor.restart();
            }
            QThread::msleep(250);
        }
        QVERIFY2(stableFor.elapsed() >= 3000, "the shard versions did not settle");
        session::pb::RoutingState r;
        QVERIFY(routing(r));
        m_versionsBefore = versionsText(r);

        // Who attacks whom: region 0's two edges; the target owns a shard and
        // caches one of its peer's at a version past 1; the peer first
        // trained under an epoch past 1 (epochs are cluster-wide, so one of
        // the two did), so there is an older one to replay.
        for (const auto &row : r.rows())
            m_shardSize.push_back(row.parameters());
        const auto events = m_cluster->events();
        auto firstEpoch = [&](int edge) -> std::uint64_t {
            for (const auto &ev : events)
                if (const auto *l = std::get_if<LeaseEvent>(&ev))
                    if (l->edge == edge && l->mode == "training")
                        return l->epoch;
            return 0;
        };
        auto lastEpoch = [&](int edge) -> std::uint64_t {
            std::uint64_t e = 0;
            for (const auto &ev : events)
                if (const auto *l = std::get_if<LeaseEvent>(&ev))
                    if (l->edge == edge && l->epoch > 0)
                        e = l->epoch;
            return e;
        };
        QCOMPARE(r.region_of_edge_size(), 4);
        for (auto [target, peer] : {std::pair{0, 1}, std::pair{1, 0}}) {
            int ownShard = -1, peerShard = -1;
            std::uint64_t cached = 0;
            for (const auto &row : r.rows()) {
                if (row.owner(0) == target && ownShard < 0)
                    ownShard = row.id();
                if (row.owner(0) == peer && row.cached_version(target) > cached) {
                    peerShard = row.id();
                    cached = row.cached_version(target);
                }
            }
            if (ownShard >= 0 && peerShard >= 0 && cached >= 2 && firstEpoch(peer) >= 2) {
                m_target = target;
                m_peer = peer;
                m_targetShard = ownShard;
                m_peerShard = peerShard;
                m_cachedAtTarget = cached;
                m_peerFirstEpoch = firstEpoch(peer);
                m_peerEpoch = lastEpoch(peer);
                break;
            }
        }
        QVERIFY2(m_target >= 0, qPrintable("no edge of region 0 to attack as planned:\n" + m_versionsBefore));
        for (int e = 0; e < r.region_of_edge_size() && m_otherRegionEdge < 0; ++e)
            if (r.region_of_edge(e) != r.region_of_edge(m_target))
                m_otherRegionEdge = e;
        QVERIFY(m_otherRegionEdge >= 0);
        qInfo("target %s (node %d, owns shard %d, caches shard %d at v%llu); forged peer %s (node %d, epochs %llu..%llu)",
              qPrintable(nodeName(targetNode())), targetNode(), m_targetShard, m_peerShard,
              (unsigned long long)m_cachedAtTarget, qPrintable(nodeName(peerNode())), peerNode(),
              (unsigned long long)m_peerFirstEpoch, (unsigned long long)m_peerEpoch);
    }

    void hostileMessage_data() {
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("toCenter");
        QTest::addColumn<bool>("streamed"); // Peer.Stream (best effort) rather than Peer.Deliver
        QTest::addColumn<Code>("code");
        QTest::addColumn<QString>("reason"); // of the RejectedInputEvent (and the status)
        const auto invalid = Code::INVALID_ARGUMENT, stale = Code::FAILED_PRECONDITION;
        const auto n = m_shardSize[std::size_t(m_targetShard)];
        const QString shard = QString("shard %1 data: ").arg(m_targetShard);
        auto both = [](const char *message, bool toCenter, Code code, const QString &reason) {
            for (bool streamed : {false, true})
                QTest::addRow("%s: %s via %s", toCenter ? "center" : "edge", message, streamed ? "Stream" : "Deliver")
                    << QString(message) << toCenter << streamed << code << reason;
        };
        // Malformed: what the codec cannot decode.
        both("unknown kind", false, invalid, QString("malformed: kind: unknown message kind %1").arg(kUnknownKind));
        both("data shorter than its shape", false, invalid,
             QString("malformed: shards[0].data: %1 bytes of data for a shape of %2 elements of 4 bytes")
                 .arg((n - 1) * 4)
                 .arg(n));
        both("unknown dtype", false, invalid,
             QString("malformed: shards[0].data: unknown tensor dtype %1").arg(kUnknownDtype));
        both("negative dimension", false, invalid, QString("malformed: shards[0].data: negative dimension %1").arg(-n));
        both("negative shard id", false, invalid, "malformed: shards[0].shard: negative shard id -1");
        // Decodable, but not what this shard is.
        both("wrong shape: too few values", false, invalid, shard + QString("%1 values for a shard of %2").arg(n - 1).arg(n));
        both("wrong shape: a matrix", false, invalid, shard + QString("a 2-dimensional tensor for a shard of %1 values").arg(n));
        both("wrong dtype: float16", false, invalid, shard + "dtype must be float32");
        both("wrong dtype: int8", false, invalid, shard + "dtype must be float32");
        both("NaN gradient", false, invalid, "malformed: shards[0].data: NaN or Inf values");
        both("+Inf gradient", false, invalid, "malformed: shards[0].data: NaN or Inf values");
        both("-Inf gradient", false, invalid, "malformed: shards[0].data: NaN or Inf values");
        // Replays and stale data.
        both("stale version", false, stale,
             QString("stale version 1 of shard %1 (this node already has ").arg(m_peerShard));
        both("replayed lease epoch", false, stale,
             QString("replayed lease epoch %1 (node %2 already presented ").arg(m_peerFirstEpoch - 1).arg(peerNode()));
        // Unknown shards and nodes, and kinds this node never takes.
        both("unknown shard", false, invalid, QString("unknown shard %1").arg(kUnknownShard));
        both("unknown sender", false, invalid, QString("unknown sender node %1").arg(kUnknownNode));
        both("addressed to another node", false, invalid,
             QString("addressed to node %1, this is node %2").arg(m_otherRegionEdge + 1).arg(targetNode()));
        both("heartbeat to an edge", false, invalid, "heartbeat is for the center");
        both("lease grant from an edge", false, invalid, "lease_grant comes only from the center");
        both("gradients without an origin", false, invalid, "gradients names no origin edge");
        both("gradients in another edge's name", false, invalid,
             QString("shard %1 carries a contribution id of edge %2 in a gradient from edge %3")
                 .arg(m_targetShard)
                 .arg(m_peer == 0 ? 1 : 0)
                 .arg(m_peer));
        both("gradients spanning too many windows", false, invalid,
             QString("shard %1 claims 100000 aggregation windows (at most 4096)").arg(m_targetShard));
        both("catch-up request without an origin", false, invalid, "catch_up_request names no origin edge");

        // The center's Peer service.
        both("unknown kind", true, invalid, QString("malformed: kind: unknown message kind %1").arg(kUnknownKind));
        both("wrong shape", true, invalid, shard + QString("%1 values for a shard of %2").arg(n + 1).arg(n));
        both("float16 delta", true, invalid, shard + "dtype must be float32");
        both("NaN delta", true, invalid, "malformed: shards[0].data: NaN or Inf values");
        both("unknown shard", true, invalid, QString("unknown shard %1").arg(kUnknownShard));
        both("unknown sender", true, invalid, QString("unknown sender node %1").arg(kUnknownNode));
        both("addressed to another node", true, invalid,
             QString("addressed to node %1, this is node 0").arg(targetNode()));
        both("replayed lease epoch", true, stale,
             QString("replayed lease epoch %1 (node %2 already presented ").arg(m_peerFirstEpoch - 1).arg(peerNode()));
        both("gradients to the center", true, invalid, "gradients is not for the center");
    }

    // One hostile message: refused with its status and reason, counted once
    // in a RejectedInputEvent of the attacked node, and nothing changed.
    void hostileMessage() {
        QFETCH(QString, message);
        QFETCH(bool, toCenter);
        QFETCH(bool, streamed);
        QFETCH(Code, code);
        QFETCH(QString, reason);
        const int node = toCenter ? engine::kCenterNode : targetNode();
        const auto from = m_cluster->events().size();
        const auto channel = m_cluster->channelTo(addressOf(node));
        const auto p = hostile(message, node);
        const auto status = streamed ? stream(channel, p) : deliver(channel, p);
        // A stream goes on past a stale or replayed message (it may have been
        // overtaken on another path): refused and counted, the stream ends OK.
        const Code expected = streamed && code == Code::FAILED_PRECONDITION ? Code::OK : code;
        QVERIFY2(status.error_code() == expected,
                 qPrintable("expected " + codeName(expected) + ", got " + describeStatus(status)));
        if (expected != Code::OK)
            QVERIFY2(QString::fromStdString(status.error_message()).contains(reason), qPrintable(describeStatus(status)));
        checkAfter(node, from, reason, 1);
    }

    void garbageBytes_data() {
        QTest::addColumn<bool>("toCenter");
        QTest::addColumn<bool>("streamed");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("reason");
        // Not protobuf at all (a varint that never ends).
        const QByteArray garbage("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11);
        // Another message's bytes (a ClassifyRequest: field 1 as bytes) parse
        // as a NodeMessage with an unknown field and all else zero: a
        // heartbeat from node 0 to node 0, which the guard refuses.
        v1::ClassifyRequest other;
        other.set_image(testImage(0));
        const std::string otherBytes = other.SerializeAsString();
        const QByteArray foreign(otherBytes.data(), int(otherBytes.size()));
        for (bool streamed : {false, true}) {
            const char *via = streamed ? "Stream" : "Deliver";
            QTest::addRow("edge: not protobuf via %s", via)
                << false << streamed << garbage << "malformed: not a synaptic.v1.NodeMessage";
            QTest::addRow("center: not protobuf via %s", via)
                << true << streamed << garbage << "malformed: not a synaptic.v1.NodeMessage";
            QTest::addRow("edge: another service's message via %s", via)
                << false << streamed << foreign << QString("addressed to node 0, this is node %1").arg(targetNode());
            QTest::addRow("center: another service's message via %s", via)
                << true << streamed << foreign << "a message from this node to itself";
        }
    }

    // Bytes from a client without our codec (gRPC's generic stub): refused
    // as malformed, counted, and the node goes on.
    void garbageBytes() {
        QFETCH(bool, toCenter);
        QFETCH(bool, streamed);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, reason);
        const int node = toCenter ? engine::kCenterNode : targetNode();
        const auto from = m_cluster->events().size();
        const auto channel = m_cluster->channelTo(addressOf(node));
        const auto status = streamed ? streamBytes(channel, bytes.toStdString()) : deliverBytes(channel, bytes.toStdString());
        QVERIFY2(status.error_code() == Code::INVALID_ARGUMENT,
                 qPrintable("expected INVALID_ARGUMENT, got " + describeStatus(status)));
        QVERIFY2(QString::fromStdString(status.error_message()).contains(reason), qPrintable(describeStatus(status)));
        checkAfter(node, from, reason, 1);
    }

    void oversizedMessage_data() {
        QTest::addColumn<bool>("toCenter");
        QTest::newRow("edge") << false;
        QTest::newRow("center") << true;
    }

    // A message above the 64 MiB receive limit every node sets (WireLimits),
    // from a client that allows itself more: gRPC refuses it before any of
    // our code runs (so it is not in a RejectedInputEvent; gRPC logs nothing
    // either), and the node goes on.
    void oversizedMessage() {
        QFETCH(bool, toCenter);
        const int node = toCenter ? engine::kCenterNode : targetNode();
        const auto from = m_cluster->events().size();
        rpc::WireLimits big;
        big.maxMessageBytes = 256 << 20;
        const auto channel =
            rpc::openChannel(addressOf(node).toStdString(), rpc::loadSecurity(m_cluster->security()), big);
        const std::int64_t values = (rpc::WireLimits{}.maxMessageBytes / 4) + (1 << 20); // 68 MiB of float32
        auto m = toCenter ? centerDelta(at::zeros({values}, at::kFloat)) : gradients(at::zeros({values}, at::kFloat));
        const auto p = rpc::toProto(m);
        QVERIFY(p.ByteSizeLong() > std::size_t(rpc::WireLimits{}.maxMessageBytes));
        const auto status = deliver(channel, p);
        QVERIFY2(status.error_code() == Code::RESOURCE_EXHAUSTED,
                 qPrintable("expected RESOURCE_EXHAUSTED, got " + describeStatus(status)));
        QVERIFY2(QString::fromStdString(status.error_message()).contains("larger than max"),
                 qPrintable(describeStatus(status)));
        qInfo("%s", qPrintable(describeStatus(status)));
        checkAfter(node, from);
    }

    // Thousands of messages in a burst on one connection: well-formed ones
    // that change nothing (an owner announcement from another region's edge,
    // naming no shard) streamed as fast as the node takes them, and meanwhile
    // Deliver calls, until the flood guard answers RESOURCE_EXHAUSTED. The
    // refusals are counted, the node answers, nothing changed, and once the
    // caller's budget refills its calls are judged on their merits again.
    void flood() {
        const int node = targetNode();
        const auto from = m_cluster->events().size();
        const auto channel = m_cluster->channelTo(addressOf(node));
        engine::Message noop;
        noop.kind = K::OwnerAnnounce;
        noop.from = m_otherRegionEdge + 1;
        noop.to = node;
        noop.origin = m_otherRegionEdge;
        const auto noopProto = rpc::toProto(noop);
        auto misaddressed = gradients(zeros(m_targetShard));
        misaddressed.to = m_otherRegionEdge + 1;
        const auto call = rpc::toProto(misaddressed);

        std::atomic<bool> stop{false};
        std::atomic<std::uint64_t> streamed{0};
        grpc::Status streamStatus;
        std::uint64_t summarized = 0;
        std::thread flooder([&] {
            auto stub = v1::Peer::NewStub(channel);
            grpc::ClientContext ctx;
            ctx.set_deadline(inSeconds(60));
            v1::StreamSummary summary;
            auto writer = stub->Stream(&ctx, &summary);
            while (!stop && streamed < 200000 && writer->Write(noopProto))
                ++streamed;
            writer->WritesDone();
            streamStatus = writer->Finish();
            summarized = summary.messages();
        });
        int exhausted = 0, judged = 0, calls = 0;
        QString exhaustedText, otherText;
        QElapsedTimer clock;
        clock.start();
        while (exhausted < 20 && clock.elapsed() < 30000) {
            const auto status = deliver(channel, call);
            ++calls;
            if (status.error_code() == Code::RESOURCE_EXHAUSTED) {
                ++exhausted;
                exhaustedText = describeStatus(status);
            } else if (status.error_code() == Code::INVALID_ARGUMENT) {
                ++judged;
            } else {
                otherText = describeStatus(status);
            }
        }
        stop = true;
        flooder.join();
        qInfo("flood: %llu messages streamed in %.1f s; %d Deliver calls: %d RESOURCE_EXHAUSTED, %d judged",
              (unsigned long long)streamed.load(), clock.elapsed() / 1000.0, calls, exhausted, judged);
        QVERIFY2(otherText.isEmpty(), qPrintable("a flooded call failed otherwise: " + otherText));
        QVERIFY2(exhausted >= 20, qPrintable(QString("only %1 of %2 calls were refused as a flood").arg(exhausted).arg(calls)));
        QVERIFY2(exhaustedText.contains("flood: "), qPrintable(exhaustedText));
        // The stream is not cut for a flood (its sender may be a slow peer's
        // backlog): every message was read, the refused ones were not queued.
        QVERIFY2(streamStatus.ok(), qPrintable(describeStatus(streamStatus)));
        QCOMPARE(summarized, streamed.load());
        // Every refused Deliver call is among the counted refusals (with the
        // streamed messages refused alongside).
        QVERIFY(m_cluster->waitFor(
            [&](const auto &events) { return refusals(events, from, node, "flood: ") >= std::uint64_t(exhausted); },
            kEventMs));
        qInfo("flood: %llu refusals counted", (unsigned long long)refusals(m_cluster->events(), from, node, "flood: "));
        checkAfter(node, from);
        // The budget refills (4000 a second, up to 8000): judged on its merits again.
        QThread::msleep(2500);
        const auto refilled = m_cluster->events().size();
        const auto after = deliver(channel, call);
        QVERIFY2(after.error_code() == Code::INVALID_ARGUMENT, qPrintable(describeStatus(after)));
        checkAfter(node, refilled,
                   QString("addressed to node %1, this is node %2").arg(m_otherRegionEdge + 1).arg(targetNode()), 1);
    }

    void refusedCaller_data() {
        QTest::addColumn<bool>("toCenter");
        QTest::addColumn<QString>("caller");
        QTest::addColumn<Code>("code");
        QTest::addColumn<QString>("logLine"); // what the node's TokenGate logs
        for (bool toCenter : {false, true}) {
            const char *where = toCenter ? "center" : "edge";
            QTest::addRow("%s: no token", where) << toCenter << "no token" << Code::UNAUTHENTICATED
                                                 << "rpc security: rejected /synaptic.v1.Peer/Deliver from a TLS "
                                                    "client without a certificate: no token";
            QTest::addRow("%s: wrong token", where) << toCenter << "wrong token" << Code::UNAUTHENTICATED
                                                    << "rpc security: rejected /synaptic.v1.Peer/Deliver from a TLS "
                                                       "client without a certificate: wrong token";
            QTest::addRow("%s: plaintext to the TLS port", where)
                << toCenter << "plaintext" << Code::UNAVAILABLE << "";
        }
    }

    // Callers the transport refuses. Token refusals happen in gRPC's
    // TokenGate (the server credentials' metadata processor) before any
    // handler, so they are not RejectedInputEvents: the gate counts them and
    // logs one line each, which is what is asserted. A plaintext client
    // never completes the TLS handshake: it gets UNAVAILABLE and the node
    // logs nothing. The message sent would be refused as misaddressed if it
    // got through, so a leak shows as INVALID_ARGUMENT.
    void refusedCaller() {
        QFETCH(bool, toCenter);
        QFETCH(QString, caller);
        QFETCH(Code, code);
        QFETCH(QString, logLine);
        const int node = toCenter ? engine::kCenterNode : targetNode();
        const auto from = m_cluster->events().size();
        const std::string address = addressOf(node).toStdString();
        std::shared_ptr<grpc::Channel> channel;
        if (caller == "no token") {
            grpc::SslCredentialsOptions tls;
            tls.pem_root_certs = rpc::loadSecurity(m_cluster->security()).caPem;
            channel = grpc::CreateChannel(address, grpc::SslCredentials(tls));
        } else if (caller == "wrong token") {
            channel = m_cluster->channelTo(addressOf(node), false);
        } else {
            channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
        }
        auto misaddressed = toCenter ? heartbeat(peerNode(), m_peerEpoch) : gradients(zeros(m_targetShard));
        misaddressed.to = m_otherRegionEdge + 1;
        const int logged = logLine.isEmpty() ? 0 : countOf(logOf(node), logLine);
        const auto status = deliver(channel, rpc::toProto(misaddressed));
        QVERIFY2(status.error_code() == code, qPrintable("expected " + codeName(code) + ", got " + describeStatus(status)));
        if (!logLine.isEmpty()) {
            QCOMPARE(QString::fromStdString(status.error_message()), QString("missing or wrong bearer token"));
            QTRY_COMPARE_WITH_TIMEOUT(countOf(logOf(node), logLine), logged + 1, 5000);
        }
        checkAfter(node, from);
        QVERIFY2(refusals(m_cluster->events(), from, node, "") == 0,
                 qPrintable("a refused caller reached the Peer service: " + refusalsText(m_cluster->events(), from)));
    }

    void cleanupTestCase() {
        if (!m_cluster)
            return;
        m_cluster->stop();
        QVERIFY2(m_cluster->leftovers().isEmpty(), qPrintable(m_cluster->leftovers().join('\n')));
    }
};

QTEST_GUILESS_MAIN(LiveHostileTest)
#include "tst_live_hostile.moc"
