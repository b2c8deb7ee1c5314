// Node interfaces (links.node_interfaces): a node's links share one line
// per direction, so an edge answering seven owners, or 24 edges sending the
// center their gradients, queue on it; without them (the shipped default)
// every pair of nodes has a line of its own. The simulator's transport
// carries real byte counts; the expected arrivals are the queueing
// arithmetic written out.
#include "core/engine/config_error.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/cluster_config_json.h"
#include "core/engine/sim/event_loop.h"
#include "core/engine/sim/link_geography.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_transport.h"
#include "shipped_cluster.h"

#include <ATen/ATen.h>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace synaptic::engine;

namespace {

// Sends a Values message of `floats` fp32 values from each (from, to)
// pair, each at its time, in order, on one fresh transport over `config`;
// returns each one's arrival (-1: never). `bytes` gets what the transport
// charged for each (a message sent at 0 is a few bytes smaller: the wire
// omits a zero send time).
struct Send {
    int from;
    int to;
    double at = 0;
};
std::vector<double> arrivals(const ClusterConfig &config, const std::vector<Send> &sends, std::int64_t floats,
                             std::vector<std::uint64_t> &bytes, const std::vector<std::pair<int, int>> &downLinks = {}) {
    EventLoop loop;
    const ClusterShape shape(config);
    std::vector<double> out(sends.size(), -1);
    bytes.assign(sends.size(), 0);
    SimTransport::Hooks hooks;
    hooks.alive = [](int) { return true; };
    hooks.exists = [](int) { return true; };
    hooks.deliver = [&](Message &&m) { out[std::size_t(m.round) - 1] = loop.now(); };
    hooks.tap = [&](const Message &m, std::uint64_t b) { bytes[std::size_t(m.round) - 1] = b; };
    SimTransport transport(loop, config, shape, hooks);
    for (const auto &[a, b] : downLinks)
        transport.setDirectionUp(a, b, false);
    const at::Tensor values = at::zeros({floats}, at::kFloat);
    for (std::size_t i = 0; i < sends.size(); ++i)
        loop.at(sends[i].at, [&transport, &sends, &values, i] {
            Message m;
            m.kind = MessageKind::Values;
            m.from = sends[i].from;
            m.to = sends[i].to;
            m.round = i + 1; // tells the arrivals apart (never 0, which the wire omits: all the same size)
            ShardItem item;
            item.data = values;
            m.shards.push_back(item);
            transport.send(std::move(m));
        });
    loop.runUntil(100);
    return out;
}

double transmit(std::uint64_t bytes, double bitsPerSecond) { return double(bytes) * 8 / bitsPerSecond; }

void compare(const std::vector<double> &got, const std::vector<double> &want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::abs(got[i] - want[i]) > 1e-9)
            QFAIL(qPrintable(QStringLiteral("message %1 arrived at %2 s, expected %3 s")
                                 .arg(i)
                                 .arg(got[i], 0, 'g', 12)
                                 .arg(want[i], 0, 'g', 12)));
}

// `prefix + self` sends to the seven other edges of its region, at time 0.
std::vector<Send> toRegionPeers(const ClusterConfig &c, const std::string &prefix, int self) {
    std::vector<Send> sends;
    for (int i = 0; i < 8; ++i)
        if (i != self)
            sends.push_back({nodeOf(c, prefix + std::to_string(self)), nodeOf(c, prefix + std::to_string(i))});
    return sends;
}

constexpr std::int64_t kFloats = 250'000; // about 1 MB: about 8 ms at 1 Gb/s

} // namespace

class TestNodeInterfaces : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void withoutInterfacesEveryPairHasItsOwnLine() {
        // The shipped default models none: seven messages to seven peers
        // all arrive after one transmit time and 1 ms.
        const auto c = shippedCluster();
        QCOMPARE(c.edgeInterfaceBitsPerSecond, 0.0);
        QCOMPARE(c.centerInterfaceBitsPerSecond, 0.0);
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, toRegionPeers(c, "eu-", 0), kFloats, bytes);
        QVERIFY(bytes[0] >= 4 * kFloats);
        compare(got, std::vector<double>(7, transmit(bytes[0], 1e9) + 0.001));
    }

    void anEdgeSendingToItsRegionQueuesOnItsInterface() {
        auto c = shippedCluster();
        c.edgeInterfaceBitsPerSecond = 1e9;
        // One line at 1 Gb/s: the k-th message leaves after k transmit
        // times (the receivers' interfaces, as fast as the links, add nothing).
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, toRegionPeers(c, "eu-", 0), kFloats, bytes);
        std::vector<double> want;
        for (int k = 1; k <= 7; ++k)
            want.push_back(k * transmit(bytes[0], 1e9) + 0.001);
        compare(got, want);
    }

    void aFasterInterfaceThanItsLinksLetsThemOverlap() {
        // 23 edges on 1 Gb/s center links into a 10 Gb/s center: each
        // message takes 8 ms on its link and 0.8 ms of the center's line,
        // so ten fit in one link's time and the rest queue at the center:
        // the k-th is in at max(8 ms, k * 0.8 ms) after the 40 ms latency.
        auto c = shippedCluster();
        c.edgeCenter = {0.040, 1e9, 0.0, true};
        c.centerLinks.clear();
        c.centerInterfaceBitsPerSecond = 10e9;
        std::vector<Send> sends;
        for (int node = 1; node <= c.edgeCount(); ++node)
            if (nodeOf(c, "ap-7") != node) // its last mile slows its link
                sends.push_back({node, 0});
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, sends, kFloats, bytes);
        std::vector<double> want;
        for (std::size_t k = 1; k <= sends.size(); ++k)
            want.push_back(0.040 + std::max(transmit(bytes[0], 1e9), double(k) * transmit(bytes[0], 10e9)));
        compare(got, want);
        // The center's interface alone: each edge's own interface is unset.
        QCOMPARE(LinkGeography(c).interfaceBitsPerSecond(1), 0.0);
    }

    void aFarSendersMessageDoesNotHoldUpANearOnes() {
        // The receiver's interface takes messages as they come off their
        // links: ap-7's (60 ms and 20 Mb/s to the center, 0.4 s on its
        // link) is sent first but comes last, and eu-0's, sent 1 ms later,
        // is not queued behind it.
        auto c = shippedCluster();
        c.edgeCenter = {0.040, 1e9, 0.0, true};
        c.centerInterfaceBitsPerSecond = 10e9;
        const int ap7 = nodeOf(c, "ap-7"), eu0 = nodeOf(c, "eu-0");
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, {{ap7, 0, 0.0}, {eu0, 0, 0.001}}, kFloats, bytes);
        compare(got, {0.060 + transmit(bytes[0], 20e6), 0.001 + 0.040 + transmit(bytes[1], 1e9)});
    }

    void aSlowerInterfaceHoldsBackTheLinkItFeeds() {
        // eu-0's 1 Gb/s interface carries 1 MB to eu-1 first (8 ms); the
        // next message's first bit leaves then, and its 10 Mb/s center
        // link takes 0.8 s from there, not from the send.
        auto c = shippedCluster();
        c.edgeInterfaceBitsPerSecond = 1e9;
        c.edgeCenter = {0.040, 10e6, 0.0, true};
        const int eu0 = nodeOf(c, "eu-0"), eu1 = nodeOf(c, "eu-1");
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, {{eu0, eu1}, {eu0, 0}}, kFloats, bytes);
        const double first = transmit(bytes[0], 1e9);
        compare(got, {first + 0.001, first + transmit(bytes[1], 10e6) + 0.040});
    }

    void aSlowSendersBitsComeInAtItsPace() {
        // Every edge's interface at 100 Mb/s on 1 Gb/s links: eu-0's feeds
        // its link at 100 Mb/s, and eu-1's takes the bits as they come, in
        // 80 ms, not queued again after the last one.
        auto c = shippedCluster();
        c.edgeInterfaceBitsPerSecond = 100e6;
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, {{nodeOf(c, "eu-0"), nodeOf(c, "eu-1")}}, kFloats, bytes);
        compare(got, {transmit(bytes[0], 100e6) + 0.001});
    }

    void aLastMileCapsTheEdgesInterface() {
        // ap-7's 20 Mb/s last mile: each of its links is capped at 20 Mb/s
        // already, and with interfaces its seven messages share that line,
        // one after another.
        auto c = shippedCluster();
        c.edgeInterfaceBitsPerSecond = 1e9;
        const int ap7 = nodeOf(c, "ap-7");
        QCOMPARE(LinkGeography(c).interfaceBitsPerSecond(ap7), 20e6);
        QCOMPARE(LinkGeography(c).interfaceBitsPerSecond(nodeOf(c, "ap-0")), 1e9);
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, toRegionPeers(c, "ap-", 7), kFloats / 10, bytes);
        std::vector<double> want;
        for (int k = 1; k <= 7; ++k)
            want.push_back(k * transmit(bytes[0], 20e6) + 0.021); // 1 ms in the region plus its 20 ms
        compare(got, want);
        // Without interfaces the same messages run side by side.
        c.edgeInterfaceBitsPerSecond = 0;
        compare(arrivals(c, toRegionPeers(c, "ap-", 7), kFloats / 10, bytes),
                std::vector<double>(7, transmit(bytes[0], 20e6) + 0.021));
    }

    void aDownLinkTakesNoTurnOnTheInterface() {
        auto c = shippedCluster();
        c.edgeInterfaceBitsPerSecond = 1e9;
        const auto sends = toRegionPeers(c, "eu-", 0);
        std::vector<std::uint64_t> bytes;
        const auto got = arrivals(c, sends, kFloats, bytes, {{sends.front().from, sends.front().to}});
        std::vector<double> want{-1};
        for (int k = 1; k <= 6; ++k)
            want.push_back(k * transmit(bytes[1], 1e9) + 0.001);
        compare(got, want);
    }

    void theConfigReadsAndWritesThem() {
        auto c = shippedCluster();
        c.edgeInterfaceBitsPerSecond = 1e9;
        c.centerInterfaceBitsPerSecond = 25e9;
        const std::string text = clusterConfigToJson(c);
        QVERIFY(text.find("node_interfaces") != std::string::npos);
        const auto back = parseClusterConfig(text, "written.json");
        QCOMPARE(back.edgeInterfaceBitsPerSecond, 1e9);
        QCOMPARE(back.centerInterfaceBitsPerSecond, 25e9);
        // A config without them writes no key, as before they existed.
        QVERIFY(clusterConfigToJson(shippedCluster()).find("node_interfaces") == std::string::npos);
    }

    void badValuesAreNamed_data() {
        QTest::addColumn<QString>("interfaces");
        QTest::addColumn<QString>("error");
        QTest::newRow("zero") << R"({"edge_mbps": 0})" << "links.node_interfaces.edge_mbps: must be > 0";
        QTest::newRow("negative") << R"({"center_mbps": -5})" << "links.node_interfaces.center_mbps: must be > 0";
        QTest::newRow("text") << R"({"edge_mbps": "fast"})" << "links.node_interfaces.edge_mbps: must be a number";
        QTest::newRow("unknown key") << R"({"edge_gbps": 1})" << "links.node_interfaces.edge_gbps: unknown key";
        QTest::newRow("not an object") << "1000" << "links.node_interfaces: must be an object";
        QTest::newRow("empty") << "{}" << "links.node_interfaces: give edge_mbps, center_mbps or both";
    }
    void badValuesAreNamed() {
        QFETCH(QString, interfaces);
        QFETCH(QString, error);
        const std::string config = R"({"links": {"node_interfaces": )" + interfaces.toStdString() +
                                   R"(}, "regions": [{"name": "eu", "edges": [{"name": "eu-0"}]}]})";
        try {
            parseClusterConfig(config, "bad.json");
            QFAIL("a bad interface was accepted");
        } catch (const ConfigError &e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(error), qPrintable(what));
            QVERIFY2(what.contains("bad.json"), qPrintable(what));
        }
    }
};

QTEST_APPLESS_MAIN(TestNodeInterfaces)
#include "tst_node_interfaces.moc"
