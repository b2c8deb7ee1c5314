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

#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace synaptic::engine;

namespace {

ClusterConfig shipped() {
    return loadClusterConfig(qEnvironmentVariable("SYNAPTIC_RESOURCES").toStdString() + "/default_cluster.json");
}

int nodeOf(const ClusterConfig &c, const std::string &edge) {
    int e = 0;
    for (const auto &r : c.regions)
        for (const auto &x : r.edges) {
            if (x.name == edge)
                return e + 1;
            ++e;
        }
    return -1;
}

// Sends `bytes` from each (from, to) pair at time 0, in order, on one fresh
// transport over `config`; returns each one's arrival (-1: never).
std::vector<double> arrivals(const ClusterConfig &config, const std::vector<std::pair<int, int>> &sends,
                             std::uint64_t bytes, const std::vector<std::pair<int, int>> &downLinks = {}) {
    EventLoop loop;
    const ClusterShape shape(config);
    SimTransport::Hooks hooks;
    hooks.alive = [](int) { return true; };
    hooks.exists = [](int) { return true; };
    hooks.deliver = [](Message &&) {};
    SimTransport transport(loop, config, shape, hooks);
    for (const auto &[a, b] : downLinks)
        transport.setDirectionUp(a, b, false);
    std::vector<double> out;
    for (const auto &[from, to] : sends) {
        const auto arrival = transport.sendRaw(from, to, bytes);
        out.push_back(arrival ? *arrival : -1);
    }
    return out;
}

void compare(const std::vector<double> &got, const std::vector<double> &want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::abs(got[i] - want[i]) > 1e-9)
            QFAIL(qPrintable(QStringLiteral("message %1 arrived at %2 s, expected %3 s")
                                 .arg(i)
                                 .arg(got[i], 0, 'g', 12)
                                 .arg(want[i], 0, 'g', 12)));
}

// eu-0 sends to the seven other eu edges.
std::vector<std::pair<int, int>> toRegionPeers(const ClusterConfig &c, const std::string &prefix, int self) {
    std::vector<std::pair<int, int>> sends;
    for (int i = 0; i < 8; ++i)
        if (i != self)
            sends.push_back({nodeOf(c, prefix + std::to_string(self)), nodeOf(c, prefix + std::to_string(i))});
    return sends;
}

constexpr std::uint64_t kMegabyte = 1'000'000; // 8 ms at 1 Gb/s

} // namespace

class TestNodeInterfaces : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void withoutInterfacesEveryPairHasItsOwnLine() {
        // The shipped default models none: seven 1 MB messages to seven
        // peers all arrive after one transmit time (8 ms) and 1 ms.
        const auto c = shipped();
        QCOMPARE(c.edgeInterfaceBitsPerSecond, 0.0);
        QCOMPARE(c.centerInterfaceBitsPerSecond, 0.0);
        compare(arrivals(c, toRegionPeers(c, "eu-", 0), kMegabyte), std::vector<double>(7, 0.008 + 0.001));
    }

    void anEdgeSendingToItsRegionQueuesOnItsInterface() {
        auto c = shipped();
        c.edgeInterfaceBitsPerSecond = 1e9;
        // One line at 1 Gb/s: the k-th message leaves after k transmit times.
        std::vector<double> want;
        for (int k = 1; k <= 7; ++k)
            want.push_back(k * 0.008 + 0.001);
        compare(arrivals(c, toRegionPeers(c, "eu-", 0), kMegabyte), want);
    }

    void aFasterInterfaceThanItsLinksLetsThemOverlap() {
        // 24 edges on 1 Gb/s center links into a 10 Gb/s center: each
        // message takes 8 ms on its link and 0.8 ms of the center's line,
        // so ten fit in one link's time and the rest queue at the center:
        // the k-th is in at max(8 ms, k * 0.8 ms) after the 40 ms latency.
        auto c = shipped();
        c.edgeCenter = {0.040, 1e9, 0.0, true};
        c.centerLinks.clear();
        c.centerInterfaceBitsPerSecond = 10e9;
        std::vector<std::pair<int, int>> sends;
        std::vector<double> want;
        for (int node = 1; node <= c.edgeCount(); ++node) {
            if (nodeOf(c, "ap-7") == node)
                continue; // its last mile slows its link
            sends.push_back({node, 0});
            want.push_back(0.040 + std::max(0.008, double(sends.size()) * 0.0008));
        }
        compare(arrivals(c, sends, kMegabyte), want);
        // The center's interface alone: each edge's own interface is unset.
        QCOMPARE(LinkGeography(c).interfaceBitsPerSecond(1), 0.0);
    }

    void aLastMileCapsTheEdgesInterface() {
        // ap-7's 20 Mb/s last mile: each of its links is capped at 20 Mb/s
        // already (100 KB in 40 ms), and with interfaces its seven messages
        // share that line, one after another.
        auto c = shipped();
        c.edgeInterfaceBitsPerSecond = 1e9;
        const int ap7 = nodeOf(c, "ap-7");
        QCOMPARE(LinkGeography(c).interfaceBitsPerSecond(ap7), 20e6);
        QCOMPARE(LinkGeography(c).interfaceBitsPerSecond(nodeOf(c, "ap-0")), 1e9);
        std::vector<double> want;
        for (int k = 1; k <= 7; ++k)
            want.push_back(k * 0.040 + 0.021); // 1 ms in the region plus its 20 ms
        compare(arrivals(c, toRegionPeers(c, "ap-", 7), 100'000), want);
        // Without interfaces the same messages run side by side.
        c.edgeInterfaceBitsPerSecond = 0;
        compare(arrivals(c, toRegionPeers(c, "ap-", 7), 100'000), std::vector<double>(7, 0.040 + 0.021));
    }

    void aDownLinkTakesNoTurnOnTheInterface() {
        auto c = shipped();
        c.edgeInterfaceBitsPerSecond = 1e9;
        const auto sends = toRegionPeers(c, "eu-", 0);
        const auto got = arrivals(c, sends, kMegabyte, {sends.front()});
        QCOMPARE(got.front(), -1.0);
        std::vector<double> want{-1};
        for (int k = 1; k <= 6; ++k)
            want.push_back(k * 0.008 + 0.001);
        compare(got, want);
    }

    void theConfigReadsAndWritesThem() {
        auto c = shipped();
        c.edgeInterfaceBitsPerSecond = 1e9;
        c.centerInterfaceBitsPerSecond = 25e9;
        const std::string text = clusterConfigToJson(c);
        QVERIFY(text.find("node_interfaces") != std::string::npos);
        const auto back = parseClusterConfig(text, "written.json");
        QCOMPARE(back.edgeInterfaceBitsPerSecond, 1e9);
        QCOMPARE(back.centerInterfaceBitsPerSecond, 25e9);
        // A config without them writes no key, as before they existed.
        QVERIFY(clusterConfigToJson(shipped()).find("node_interfaces") == std::string::npos);
    }

    void badValuesAreNamed_data() {
        QTest::addColumn<QString>("interfaces");
        QTest::addColumn<QString>("error");
        QTest::newRow("zero") << R"({"edge_mbps": 0})" << "links.node_interfaces.edge_mbps: must be > 0";
        QTest::newRow("negative") << R"({"center_mbps": -5})" << "links.node_interfaces.center_mbps: must be > 0";
        QTest::newRow("text") << R"({"edge_mbps": "fast"})" << "links.node_interfaces.edge_mbps: must be a number";
        QTest::newRow("unknown key") << R"({"edge_gbps": 1})" << "links.node_interfaces.edge_gbps: unknown key";
        QTest::newRow("not an object") << "1000" << "links.node_interfaces: must be an object";
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
