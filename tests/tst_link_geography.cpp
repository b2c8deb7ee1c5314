// Geography (issue 14): links per region pair, per region's center link and
// per edge's last mile, as the config says, and the simulator's transport
// delivering on them: eu -> ap after 120 ms plus transmit time, and the
// slow edge's messages slowed by its last mile.
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/event_loop.h"
#include "core/engine/sim/link_geography.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_transport.h"
#include "shipped_cluster.h"

#include <QTest>

#include <map>

using namespace synaptic::engine;

namespace {

// One message from `from` to `to` on a fresh transport over `config`;
// returns (arrival time, bytes charged).
std::pair<double, std::uint64_t> deliverOne(const ClusterConfig &config, int from, int to) {
    EventLoop loop;
    const ClusterShape shape(config);
    double arrival = -1;
    std::uint64_t bytes = 0;
    SimTransport::Hooks hooks;
    hooks.alive = [](int) { return true; };
    hooks.exists = [](int) { return true; };
    hooks.deliver = [&](Message &&) { arrival = loop.now(); };
    hooks.tap = [&](const Message &, std::uint64_t b) { bytes = b; };
    SimTransport transport(loop, config, shape, hooks);
    Message m;
    m.kind = MessageKind::Heartbeat;
    m.from = from;
    m.to = to;
    transport.send(std::move(m));
    loop.runUntil(10);
    return {arrival, bytes};
}

bool near(double a, double b) { return std::abs(a - b) < 1e-9; }

} // namespace

class TestLinkGeography : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shippedDefaultLinks_data() {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<double>("latency");
        QTest::addColumn<double>("bandwidth");
        QTest::newRow("eu-eu") << "eu-0" << "eu-1" << 0.001 << 1e9;
        QTest::newRow("eu-us") << "eu-0" << "us-3" << 0.040 << 100e6;
        QTest::newRow("eu-ap") << "eu-2" << "ap-1" << 0.120 << 100e6;
        QTest::newRow("us-ap") << "us-2" << "ap-1" << 0.100 << 100e6;
        QTest::newRow("eu-center") << "eu-2" << "center" << 0.040 << 100e6;
        QTest::newRow("ap-center") << "ap-0" << "center" << 0.040 << 100e6;
        // ap-7's last mile: 20 ms more and at most 20 Mb/s on every link it uses.
        QTest::newRow("ap-7 to center") << "ap-7" << "center" << 0.060 << 20e6;
        QTest::newRow("ap-7 in its region") << "ap-0" << "ap-7" << 0.021 << 20e6;
        QTest::newRow("ap-7 to eu") << "ap-7" << "eu-0" << 0.140 << 20e6;
    }
    void shippedDefaultLinks() {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(double, latency);
        QFETCH(double, bandwidth);
        const ClusterConfig c = shippedCluster();
        const LinkGeography g(c);
        auto node = [&](const QString &n) { return n == "center" ? 0 : nodeOf(c, n.toStdString()); };
        for (const auto &[x, y] : {std::pair{node(a), node(b)}, std::pair{node(b), node(a)}}) {
            const LinkSpec s = g.between(x, y);
            QVERIFY2(near(s.latencySeconds, latency), qPrintable(QString::number(s.latencySeconds)));
            QCOMPARE(s.bandwidthBitsPerSecond, bandwidth);
            QCOMPARE(s.lossRate, 0.0);
            QVERIFY(s.up);
        }
    }

    void combinesLastMileAndCenterOverride() {
        const ClusterConfig c = parseClusterConfig(R"({
            "links": {"edge_center": {"latency_ms": 30, "bandwidth_mbps": 100},
                      "region_center": [{"region": "b", "latency_ms": 90, "loss": 0.1}]},
            "regions": [{"name": "a", "edges": [{"name": "a0"}]},
                        {"name": "b", "edges": [{"name": "b0", "last_mile": {"latency_ms": 5, "bandwidth_mbps": 500, "loss": 0.5}}]}]})",
                                                   "t.json");
        const LinkGeography g(c);
        QVERIFY(near(g.between(1, 0).latencySeconds, 0.030));
        const LinkSpec b0 = g.between(0, 2);
        QVERIFY(near(b0.latencySeconds, 0.095));
        QCOMPARE(b0.bandwidthBitsPerSecond, 100e6); // a last mile faster than the link caps nothing
        QVERIFY(near(b0.lossRate, 1 - 0.9 * 0.5));
        QVERIFY(near(g.between(1, 2).latencySeconds, 0.045)); // inter_region default 40 ms + 5 ms
    }

    void euToApArrivesAfter120msPlusTransmit() {
        const ClusterConfig c = shippedCluster();
        const auto [arrival, bytes] = deliverOne(c, nodeOf(c, "eu-0"), nodeOf(c, "ap-0"));
        QVERIFY(bytes > 0);
        QVERIFY2(near(arrival, 0.120 + Link::transmitSeconds(bytes, 100e6)), qPrintable(QString::number(arrival)));
        // eu -> us on the same default is the 40 ms pair: geography, not one class.
        const auto [toUs, usBytes] = deliverOne(c, nodeOf(c, "eu-0"), nodeOf(c, "us-0"));
        QVERIFY(near(toUs, 0.040 + Link::transmitSeconds(usBytes, 100e6)));
    }

    void slowEdgeIsSlowed() {
        const ClusterConfig c = shippedCluster();
        const auto [slow, slowBytes] = deliverOne(c, nodeOf(c, "ap-7"), kCenterNode);
        const auto [fast, fastBytes] = deliverOne(c, nodeOf(c, "ap-6"), kCenterNode);
        QCOMPARE(slowBytes, fastBytes);
        QVERIFY(near(fast, 0.040 + Link::transmitSeconds(fastBytes, 100e6)));
        QVERIFY(near(slow, 0.060 + Link::transmitSeconds(slowBytes, 20e6)));
        // Inside its region too: the last mile is the edge's own line.
        const auto [lan, lanBytes] = deliverOne(c, nodeOf(c, "ap-0"), nodeOf(c, "ap-7"));
        QVERIFY(near(lan, 0.021 + Link::transmitSeconds(lanBytes, 20e6)));
    }

    void classesStayDefaults() {
        // A config without geography keeps the three global classes.
        const ClusterConfig c = parseClusterConfig(
            R"({"regions": [{"name": "a", "edges": [{}, {}]}, {"name": "b", "edges": [{}]}]})", "t.json");
        const LinkGeography g(c);
        QVERIFY(near(g.between(1, 2).latencySeconds, c.intraRegion.latencySeconds));
        QVERIFY(near(g.between(1, 3).latencySeconds, c.interRegion.latencySeconds));
        QVERIFY(near(g.between(3, 0).latencySeconds, c.edgeCenter.latencySeconds));
        QCOMPARE(g.between(3, 0).bandwidthBitsPerSecond, c.edgeCenter.bandwidthBitsPerSecond);
    }
};

QTEST_APPLESS_MAIN(TestLinkGeography)
#include "tst_link_geography.moc"
