// Cluster configs: the shipped default has the topology the design names,
// and every malformed config is refused with the file and the field.
#include "core/engine/sim/cluster_config.h"

#include <QTest>

using namespace synaptic::engine;

namespace {
const char *kMinimal = R"({"regions": [{"name": "r", "edges": [{}]}]})";
}

class TestClusterConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shippedDefault() {
        const std::string path = qEnvironmentVariable("SYNAPTIC_RESOURCES").toStdString() + "/default_cluster.json";
        const ClusterConfig c = loadClusterConfig(path);
        QCOMPARE(c.regions.size(), std::size_t(3));
        QCOMPARE(c.edgeCount(), 24);
        QCOMPARE(c.batchSize, 32); // halved with twice the edges: a cluster step trains as many samples (issue 14)
        for (const auto &r : c.regions)
            for (const auto &e : r.edges)
                QCOMPARE(e.gflops, 100.0);
        QCOMPARE(c.centerGflops, 1000.0);
        QCOMPARE(c.intraRegion.latencySeconds, 0.001);
        QCOMPARE(c.intraRegion.bandwidthBitsPerSecond, 1e9);
        QCOMPARE(c.edgeCenter.latencySeconds, 0.040);
        QCOMPARE(c.edgeCenter.bandwidthBitsPerSecond, 100e6);
        QCOMPARE(c.interRegion.latencySeconds, 0.040);
        QCOMPARE(c.interRegion.bandwidthBitsPerSecond, 100e6);
        QCOMPARE(c.partition, std::string("iid"));
        QCOMPARE(c.strategy, std::string("synaptic"));
    }

    void minimalUsesDefaults() {
        const ClusterConfig c = parseClusterConfig(kMinimal, "mini.json");
        QCOMPARE(c.edgeCount(), 1);
        QCOMPARE(c.regions[0].edges[0].name, std::string("r-0"));
        QCOMPARE(c.knobs.aggregationWindowSteps, 1);
        QCOMPARE(c.knobs.centerSyncWindows, 32);
        QCOMPARE(c.knobs.waitForValues, true);
        QCOMPARE(c.knobs.gossipSteps, 4);
        QCOMPARE(c.knobs.confidenceThreshold, 0.85);
        QCOMPARE(c.edgeCenter.bandwidthBitsPerSecond, 100e6);
    }

    void errors_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << "{" << "mini.json: not valid JSON";
        QTest::newRow("no regions") << "{}" << "regions: must be a non-empty array";
        QTest::newRow("empty regions") << R"({"regions": []})" << "regions: must be a non-empty array";
        QTest::newRow("unknown top key") << R"({"region": []})" << "region: unknown key";
        QTest::newRow("bad strategy") << R"({"strategy": "magic", "regions": []})"
                                      << "strategy: must be one of synaptic, param_server, allreduce, diloco, hier_allreduce, "
                                         "hier_diloco, gossip";
        QTest::newRow("bad codec") << R"({"codecs": {"center": "int4"}, "regions": []})"
                                   << "codecs.center: unknown codec 'int4'";
        QTest::newRow("bad top-k") << R"({"codecs": {"gradients": "topk:2"}, "regions": []})"
                                   << "codecs.gradients: codec 'topk:2': the top-k fraction must be a number in (0, 1]";
        QTest::newRow("unknown codec class") << R"({"codecs": {"weights": "fp16"}, "regions": []})"
                                             << "codecs.weights: unknown key";
        QTest::newRow("region without name") << R"({"regions": [{"edges": [{}]}]})" << "regions[0].name: is required";
        QTest::newRow("region without edges") << R"({"regions": [{"name": "a", "edges": []}]})"
                                              << "regions[0].edges: must be a non-empty array";
        QTest::newRow("duplicate region") << R"({"regions": [{"name": "a", "edges": [{}]}, {"name": "a", "edges": [{}]}]})"
                                          << "regions[1].name: \"a\" is used twice";
        QTest::newRow("reserved name") << R"({"regions": [{"name": "center", "edges": [{}]}]})"
                                       << "regions[0].name: \"center\" is used twice (or is reserved)";
        QTest::newRow("duplicate edge") << R"({"regions": [{"name": "a", "edges": [{"name": "x"}, {"name": "x"}]}]})"
                                        << "regions[0].edges[1].name: \"x\" is used twice";
        QTest::newRow("zero gflops") << R"({"regions": [{"name": "a", "edges": [{"gflops": 0}]}]})"
                                     << "regions[0].edges[0].gflops: must be > 0";
        QTest::newRow("string gflops") << R"({"regions": [{"name": "a", "edges": [{"gflops": "fast"}]}]})"
                                       << "regions[0].edges[0].gflops: must be a number";
        QTest::newRow("unknown edge key") << R"({"regions": [{"name": "a", "edges": [{"gpu": 1}]}]})"
                                          << "regions[0].edges[0].gpu: unknown key";
        QTest::newRow("negative latency") << R"({"links": {"edge_center": {"latency_ms": -1}}, "regions": []})"
                                          << "links.edge_center.latency_ms: must be >= 0";
        QTest::newRow("zero bandwidth") << R"({"links": {"intra_region": {"bandwidth_mbps": 0}}, "regions": []})"
                                        << "links.intra_region.bandwidth_mbps: must be > 0";
        QTest::newRow("total loss") << R"({"links": {"inter_region": {"loss": 1}}, "regions": []})"
                                    << "links.inter_region.loss: must be >= 0 and <= 0.99";
        QTest::newRow("fractional window") << R"({"knobs": {"aggregation_window_steps": 2.5}, "regions": []})"
                                           << "knobs.aggregation_window_steps: must be an integer";
        QTest::newRow("confidence above 1") << R"({"knobs": {"confidence_threshold": 1.2}, "regions": []})"
                                            << "knobs.confidence_threshold: must be >= 0 and <= 1, got 1.2";
        QTest::newRow("heartbeat >= lease") << R"({"knobs": {"lease_seconds": 2, "heartbeat_seconds": 3}, "regions": []})"
                                            << "knobs.heartbeat_seconds: must be shorter than knobs.lease_seconds";
        QTest::newRow("bad outer optimizer") << R"({"knobs": {"outer_optimizer": "sgd"}, "regions": []})"
                                             << "knobs.outer_optimizer: must be one of nesterov, average";
        QTest::newRow("wait not bool") << R"({"knobs": {"wait_for_values": "yes"}, "regions": []})"
                                       << "knobs.wait_for_values: must be true or false";
        QTest::newRow("zero gossip steps") << R"({"knobs": {"gossip_steps": 0}, "regions": []})"
                                           << "knobs.gossip_steps: must be between 1 and 100000";
        QTest::newRow("zero sync windows") << R"({"knobs": {"center_sync_windows": 0}, "regions": []})"
                                           << "knobs.center_sync_windows: must be between 1 and 100000";
        QTest::newRow("bad partition") << R"({"data": {"partition": "random"}, "regions": []})"
                                       << "data.partition: must be one of iid, dirichlet";
        QTest::newRow("zero alpha") << R"({"data": {"dirichlet_alpha": 0}, "regions": []})"
                                    << "data.dirichlet_alpha: must be > 0";
        QTest::newRow("huge test subset") << R"({"evaluation": {"test_subset": 20000}, "regions": []})"
                                          << "evaluation.test_subset: must be between 1 and 10000";
        QTest::newRow("negative seed") << R"({"seed": -1, "regions": []})" << "seed: must be between 0";
        QTest::newRow("model not object") << R"({"model": 3, "regions": []})" << "model: must be an object";
    }
    void errors() {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        try {
            parseClusterConfig(json.toStdString(), "mini.json");
            QFAIL("expected ConfigError");
        } catch (const ConfigError &e) {
            const QString msg = e.what();
            QVERIFY2(msg.startsWith("mini.json: "), qPrintable(msg));
            QVERIFY2(msg.contains(expected), qPrintable(msg));
        }
    }

    void missingFile() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, loadClusterConfig("/nonexistent/cluster.json"));
    }
};

QTEST_APPLESS_MAIN(TestClusterConfig)
#include "tst_cluster_config.moc"
