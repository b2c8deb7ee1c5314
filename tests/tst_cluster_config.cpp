// Cluster configs: the shipped default has the topology the design names,
// and every malformed config is refused with the file and the field.
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/cluster_config_json.h"
#include "core/engine/sim/config_search.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/sim/sim_world.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
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
        QCOMPARE(c.knobs.trainAheadWindows, 8); // ap-7's slow last mile: no lone tail (issue 14, seventh pass)
        // Per-request costs: the shipped file states the measured defaults.
        const ServingKnobs measured;
        QCOMPARE(c.serving.edgeRequestMs, measured.edgeRequestMs);
        QCOMPARE(c.serving.centerRequestMs, measured.centerRequestMs);
        QCOMPARE(c.serving.centerFullRequestMs, measured.centerFullRequestMs);
        QCOMPARE(c.serving.probeMs, 1000.0);
        // The geography issue 14 names: eu<->us 40 ms, eu<->ap 120 ms, us<->ap
        // 100 ms (our pick), and ap-7 behind a slow last mile.
        QCOMPARE(c.regionLinks.size(), std::size_t(3));
        auto pair = [&](const std::string &a, const std::string &b) {
            for (const auto &p : c.regionLinks)
                if ((p.a == a && p.b == b) || (p.a == b && p.b == a))
                    return p.spec;
            return LinkSpec{-1, -1, -1, false};
        };
        QCOMPARE(pair("eu", "us").latencySeconds, 0.040);
        QCOMPARE(pair("eu", "ap").latencySeconds, 0.120);
        QCOMPARE(pair("us", "ap").latencySeconds, 0.100);
        QCOMPARE(pair("eu", "ap").bandwidthBitsPerSecond, 100e6);
        int slow = 0;
        for (const auto &r : c.regions)
            for (const auto &e : r.edges)
                if (e.lastMile) {
                    ++slow;
                    QCOMPARE(e.name, std::string("ap-7"));
                    QCOMPARE(e.lastMile->latencySeconds, 0.020);
                    QCOMPARE(e.lastMile->bandwidthBitsPerSecond, 20e6);
                }
        QCOMPARE(slow, 1);
        QCOMPARE(c.planner.minShare, 0.05);
        QCOMPARE(c.planner.maxShare, 0.15);
        QCOMPARE(c.planner.onBound, std::string("confirm"));
        QCOMPARE(c.task, std::string("fashion-mnist")); // a config without "task" trains images
    }

    void aBareNameIsFoundInTheUsersThenTheShippedFolders() {
        // As the package installs it: shipped configs in <data dir>/synaptic,
        // the user's own in $XDG_CONFIG_HOME/synaptic (issue 17 §2).
        QTemporaryDir dir;
        const QString user = dir.path() + "/config";
        const QString shipped = dir.path() + "/share-a";
        const QString later = dir.path() + "/share-b";
        for (const QString &d : {user + "/synaptic", shipped + "/synaptic", later + "/synaptic"})
            QVERIFY(QDir().mkpath(d));
        const QByteArray oldConfig = qgetenv("XDG_CONFIG_HOME");
        const QByteArray oldData = qgetenv("XDG_DATA_DIRS");
        qputenv("XDG_CONFIG_HOME", user.toUtf8());
        qputenv("XDG_DATA_DIRS", (shipped + "/:" + later).toUtf8());
        const auto write = [](const QString &path, int seed) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QString(R"({"seed": %1, "regions": [{"name": "r", "edges": [{}]}]})").arg(seed).toUtf8());
        };
        write(shipped + "/synaptic/cluster.json", 1);
        write(later + "/synaptic/cluster.json", 2);   // shadowed by the earlier data dir
        write(later + "/synaptic/only_late.json", 3);
        write(user + "/synaptic/cluster.json", 4);    // the user's wins over the shipped one
        write(shipped + "/synaptic/shipped.json", 5);

        const auto dirs = configSearchDirs();
        QCOMPARE(dirs.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(dirs[0]), user + "/synaptic");
        QCOMPARE(QString::fromStdString(dirs[1]), shipped + "/synaptic"); // the trailing slash dropped
        QCOMPARE(loadClusterConfig("cluster").seed, std::uint64_t(4));
        QCOMPARE(loadClusterConfig("shipped.json").seed, std::uint64_t(5));
        QCOMPARE(loadClusterConfig("only_late").seed, std::uint64_t(3));
        QCOMPARE(QString::fromStdString(resolveConfigPath("shipped")), shipped + "/synaptic/shipped.json");
        // A path with a folder is read as given, never searched.
        QCOMPARE(resolveConfigPath("sub/cluster.json"), std::string("sub/cluster.json"));
        try {
            loadClusterConfig("nowhere");
            QFAIL("found a config that does not exist");
        } catch (const ConfigError &e) {
            const QString what = e.what();
            QVERIFY2(what.startsWith("nowhere: no such config file") && what.contains("the working folder") &&
                         what.contains(user + "/synaptic") && what.contains(later + "/synaptic"),
                     e.what());
        }
        // Unset, the XDG defaults: ~/.config/synaptic, /usr/local/share/synaptic, /usr/share/synaptic.
        qunsetenv("XDG_DATA_DIRS");
        QCOMPARE(configSearchDirs().back(), std::string("/usr/share/synaptic"));
        QVERIFY(QString::fromStdString(configSearchHelp()).contains("/usr/share/synaptic"));
        qputenv("XDG_CONFIG_HOME", oldConfig);
        if (oldData.isEmpty())
            qunsetenv("XDG_DATA_DIRS");
        else
            qputenv("XDG_DATA_DIRS", oldData);
    }

    void theConfigChoosesTheTask() {
        // The shipped langid config is the default cluster with "task": "langid" (issue 16 §1).
        const auto dir = qEnvironmentVariable("SYNAPTIC_RESOURCES").toStdString();
        const ClusterConfig langid = loadClusterConfig(dir + "/langid_cluster.json");
        const ClusterConfig images = loadClusterConfig(dir + "/default_cluster.json");
        QCOMPARE(langid.task, std::string("langid"));
        QCOMPARE(images.task, std::string("fashion-mnist"));
        QCOMPARE(langid.edgeCount(), images.edgeCount());
        // Written and read back, the task stays (recordings carry the config);
        // the default is not written, so builds before the key read the file.
        QCOMPARE(parseClusterConfig(clusterConfigToJson(langid), "again.json").task, std::string("langid"));
        QVERIFY(QString::fromStdString(clusterConfigToJson(langid)).contains("\"task\": \"langid\""));
        QVERIFY(!QString::fromStdString(clusterConfigToJson(images)).contains("\"task\""));
        // The training strategies build the config's task's model, not
        // Fashion-MNIST's (issue 16 §1): langid's table is sharded by rows.
        const auto model = makeModelSetup(langid, topologyOf(langid), "cpu");
        QCOMPARE(model->task, std::string("langid"));
        QCOMPARE(model->layers.front().kind, LayerLayout::Kind::Embedding);
        QCOMPARE(model->layers.front().rows, std::int64_t(1) << 16);
        QCOMPARE(makeModelSetup(images, topologyOf(images), "cpu")->layers.front().name, std::string("conv1"));
    }

    // Per-request costs and the probe interval are read and written back
    // (a recording's config reruns with the same serving model).
    void servingCosts() {
        const ClusterConfig c = parseClusterConfig(
            R"({"serving": {"edge_request_ms": 0.5, "center_request_ms": 0, "center_full_request_ms": 2.25,
                            "probe_ms": 250}, "regions": [{"name": "a", "edges": [{}]}]})",
            "costs.json");
        QCOMPARE(c.serving.edgeRequestMs, 0.5);
        QCOMPARE(c.serving.centerRequestMs, 0.0);
        QCOMPARE(c.serving.centerFullRequestMs, 2.25);
        QCOMPARE(c.serving.probeMs, 250.0);
        const ClusterConfig back = parseClusterConfig(clusterConfigToJson(c), "round trip");
        QCOMPARE(back.serving.edgeRequestMs, 0.5);
        QCOMPARE(back.serving.centerFullRequestMs, 2.25);
        QCOMPARE(back.serving.probeMs, 250.0);
    }

    // Written back, so a recording's config reruns with the same edges.
    void trainAheadRoundTrips() {
        const ClusterConfig c = parseClusterConfig(R"({"knobs": {"train_ahead_windows": 8},
                                                       "regions": [{"name": "a", "edges": [{}]}]})",
                                                   "ahead.json");
        QCOMPARE(c.knobs.trainAheadWindows, 8);
        QCOMPARE(parseClusterConfig(clusterConfigToJson(c), "round trip").knobs.trainAheadWindows, 8);
    }

    // The on/off knobs values_on_contribution, local_updates and staleness_weighting: read and written back when
    // on; a config without them writes no key, as before they existed.
    void onOffKnobsRoundTrip() {
        ClusterConfig c = parseClusterConfig(R"({"knobs": {"values_on_contribution": true, "local_updates": true, "staleness_weighting": true},
                                                 "regions": [{"name": "a", "edges": [{}]}]})",
                                             "contrib.json");
        QVERIFY(c.knobs.valuesOnContribution);
        QVERIFY(c.knobs.localUpdates);
        QVERIFY(c.knobs.stalenessWeighting);
        const ClusterConfig back = parseClusterConfig(clusterConfigToJson(c), "round trip");
        QVERIFY(back.knobs.valuesOnContribution);
        QVERIFY(back.knobs.localUpdates);
        QVERIFY(back.knobs.stalenessWeighting);
        c.knobs.valuesOnContribution = false;
        c.knobs.localUpdates = false;
        c.knobs.stalenessWeighting = false;
        const QString written = QString::fromStdString(clusterConfigToJson(c));
        QVERIFY(!written.contains("values_on_contribution"));
        QVERIFY(!written.contains("local_updates"));
        QVERIFY(!written.contains("staleness_weighting"));
    }

    // hub_merges, its pull period and its settle time: read, written back
    // (the two times only beside the switch), and none written when off.
    void hubMergesRoundTrip() {
        ClusterConfig c = parseClusterConfig(R"({"knobs": {"hub_merges": true, "hub_pull_seconds": 0.25, "hub_settle_seconds": 2},
                                                 "regions": [{"name": "a", "edges": [{}]}]})",
                                             "hubs.json");
        QVERIFY(c.knobs.hubMerges);
        QCOMPARE(c.knobs.hubPullSeconds, 0.25);
        QCOMPARE(c.knobs.hubSettleSeconds, 2.0);
        const ClusterConfig back = parseClusterConfig(clusterConfigToJson(c), "round trip");
        QVERIFY(back.knobs.hubMerges);
        QCOMPARE(back.knobs.hubPullSeconds, 0.25);
        QCOMPARE(back.knobs.hubSettleSeconds, 2.0);
        c.knobs.hubMerges = false;
        const QString written = QString::fromStdString(clusterConfigToJson(c));
        QVERIFY(!written.contains("hub_merges"));
        QVERIFY(!written.contains("hub_pull_seconds"));
        QVERIFY(!written.contains("hub_settle_seconds"));
        // Absent, the settle time is one pull period (as before the key
        // existed); 0 (settle at the next pull) is a valid choice.
        const ClusterConfig absent = parseClusterConfig(R"({"knobs": {"hub_merges": true, "hub_pull_seconds": 0.25},
                                                            "regions": [{"name": "a", "edges": [{}]}]})",
                                                        "hubs.json");
        QCOMPARE(absent.knobs.hubSettleSeconds, 0.25);
        const ClusterConfig zero = parseClusterConfig(R"({"knobs": {"hub_merges": true, "hub_settle_seconds": 0},
                                                          "regions": [{"name": "a", "edges": [{}]}]})",
                                                      "hubs.json");
        QCOMPARE(zero.knobs.hubSettleSeconds, 0.0);
    }

    // One edge's own local_updates key: that edge alone (localUpdatesAt
    // counts edges over all regions, in order), written back only where on.
    void oneEdgesLocalUpdatesRoundTrip() {
        const ClusterConfig c = parseClusterConfig(
            R"({"regions": [{"name": "a", "edges": [{}, {}]},
                            {"name": "b", "edges": [{}, {"name": "slow", "local_updates": true}]}]})",
            "one-edge.json");
        QVERIFY(!c.knobs.localUpdates);
        QVERIFY(c.regions[1].edges[1].localUpdates);
        for (int edge = 0; edge < 4; ++edge)
            QCOMPARE(c.localUpdatesAt(edge), edge == 3);
        QVERIFY(!c.localUpdatesAt(4));
        const std::string written = clusterConfigToJson(c);
        const ClusterConfig back = parseClusterConfig(written, "round trip");
        for (int edge = 0; edge < 4; ++edge)
            QCOMPARE(back.localUpdatesAt(edge), edge == 3);
        QCOMPARE(QString::fromStdString(written).count("local_updates"), 1);
    }

    // The learning-rate schedule: read and written back (its arithmetic:
    // tst_lr_schedule).
    void learningRateSchedule() {
        const ClusterConfig c = parseClusterConfig(R"({"model": {"lr": 0.01, "lr_decay_from": 0.5, "lr_final": 0.1},
                                                       "regions": [{"name": "a", "edges": [{}]}]})",
                                                   "schedule.json");
        QCOMPARE(c.lrDecayFrom, 0.5);
        QCOMPARE(c.lrFinal, 0.1);
        const ClusterConfig back = parseClusterConfig(clusterConfigToJson(c), "round trip");
        QCOMPARE(back.lrDecayFrom, 0.5);
        QCOMPARE(back.lrFinal, 0.1);
        // Written only when set: a config without the schedule stays
        // readable by builds from before it.
        const std::string plain = clusterConfigToJson(parseClusterConfig(kMinimal, "mini.json"));
        QVERIFY(plain.find("lr_decay_from") == std::string::npos);
        QVERIFY(plain.find("lr_final") == std::string::npos);
    }

    void geography() {
        const ClusterConfig c = parseClusterConfig(R"({
            "links": {"inter_region": {"latency_ms": 50, "bandwidth_mbps": 80, "loss": 0.01},
                      "region_pairs": [{"a": "x", "b": "y", "latency_ms": 7}],
                      "region_center": [{"region": "y", "bandwidth_mbps": 5}]},
            "regions": [{"name": "x", "edges": [{"name": "x0", "last_mile": {"latency_ms": 3}}]},
                        {"name": "y", "edges": [{"name": "y0"}]},
                        {"name": "z", "edges": [{"name": "z0"}]}]})",
                                                   "geo.json");
        QCOMPARE(c.regionLinks.size(), std::size_t(1));
        // A pair's missing fields come from the class it overrides.
        QCOMPARE(c.regionLinks[0].spec.latencySeconds, 0.007);
        QCOMPARE(c.regionLinks[0].spec.bandwidthBitsPerSecond, 80e6);
        QCOMPARE(c.regionLinks[0].spec.lossRate, 0.01);
        QCOMPARE(c.centerLinks.size(), std::size_t(1));
        QCOMPARE(c.centerLinks[0].region, std::string("y"));
        QCOMPARE(c.centerLinks[0].spec.latencySeconds, 0.040);
        QCOMPARE(c.centerLinks[0].spec.bandwidthBitsPerSecond, 5e6);
        QVERIFY(c.regions[0].edges[0].lastMile.has_value());
        QCOMPARE(c.regions[0].edges[0].lastMile->latencySeconds, 0.003);
        QCOMPARE(c.regions[0].edges[0].lastMile->bandwidthBitsPerSecond, 0.0); // no cap given
        QVERIFY(!c.regions[1].edges[0].lastMile);
        // What the live cluster and recordings carry reads back the same.
        const ClusterConfig back = parseClusterConfig(clusterConfigToJson(c), "round trip");
        QCOMPARE(clusterConfigToJson(back), clusterConfigToJson(c));
        QCOMPARE(back.regionLinks[0].spec.latencySeconds, 0.007);
        QCOMPARE(back.centerLinks[0].spec.bandwidthBitsPerSecond, 5e6);
        QCOMPARE(back.regions[0].edges[0].lastMile->latencySeconds, 0.003);
        QVERIFY(!back.regions[1].edges[0].lastMile);
    }

    void minimalUsesDefaults() {
        const ClusterConfig c = parseClusterConfig(kMinimal, "mini.json");
        QCOMPARE(c.edgeCount(), 1);
        QCOMPARE(c.regions[0].edges[0].name, std::string("r-0"));
        QCOMPARE(c.knobs.aggregationWindowSteps, 1);
        QCOMPARE(c.knobs.centerSyncWindows, 32);
        QCOMPARE(c.knobs.waitForValues, true);
        QCOMPARE(c.knobs.trainAheadWindows, 0); // an edge waits idle unless the config says otherwise
        QCOMPARE(c.knobs.gossipSteps, 4);
        QCOMPARE(c.knobs.confidenceThreshold, 0.85);
        QCOMPARE(c.edgeCenter.bandwidthBitsPerSecond, 100e6);
        QVERIFY(c.regionLinks.empty()); // the three global classes stay the defaults
        QVERIFY(c.centerLinks.empty());
        QVERIFY(!c.regions[0].edges[0].lastMile);
        QCOMPARE(c.planner.minShare, 0.05);
        QCOMPARE(c.planner.maxShare, 0.15);
        QCOMPARE(c.planner.onBound, std::string("confirm"));
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
        QTest::newRow("bad task") << R"({"task": "imagenet", "regions": []})"
                                  << "task: must be one of fashion-mnist, langid";
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
        QTest::newRow("values on contribution not bool")
            << R"({"knobs": {"values_on_contribution": 1}, "regions": []})"
            << "knobs.values_on_contribution: must be true or false";
        QTest::newRow("local updates not bool") << R"({"knobs": {"local_updates": "on"}, "regions": []})"
                                                << "knobs.local_updates: must be true or false";
        QTest::newRow("staleness weighting not bool") << R"({"knobs": {"staleness_weighting": 0}, "regions": []})"
                                                      << "knobs.staleness_weighting: must be true or false";
        QTest::newRow("hub merges not bool") << R"({"knobs": {"hub_merges": "yes"}, "regions": []})"
                                             << "knobs.hub_merges: must be true or false";
        QTest::newRow("hub pull period zero") << R"({"knobs": {"hub_pull_seconds": 0}, "regions": []})"
                                              << "knobs.hub_pull_seconds: must be > 0 and <= 3600, got 0";
        QTest::newRow("hub settle time negative") << R"({"knobs": {"hub_settle_seconds": -1}, "regions": []})"
                                                  << "knobs.hub_settle_seconds: must be >= 0 and <= 30, got -1";
        QTest::newRow("hub settle time past the simulator's minute")
            << R"({"knobs": {"hub_settle_seconds": 31}, "regions": []})"
            << "knobs.hub_settle_seconds: must be >= 0 and <= 30, got 31";
        QTest::newRow("an edge's local updates not bool")
            << R"({"regions": [{"name": "a", "edges": [{}, {"local_updates": "yes"}]}]})"
            << "regions[0].edges[1].local_updates: must be true or false";
        QTest::newRow("train ahead too far") << R"({"knobs": {"train_ahead_windows": 17}, "regions": []})"
                                             << "knobs.train_ahead_windows: must be between 0 and 16";
        QTest::newRow("train ahead negative") << R"({"knobs": {"train_ahead_windows": -1}, "regions": []})"
                                              << "knobs.train_ahead_windows: must be between 0 and 16";
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
        const QString two = R"("regions": [{"name": "a", "edges": [{}]}, {"name": "b", "edges": [{}]}])";
        QTest::newRow("pair: unknown region")
            << R"({"links": {"region_pairs": [{"a": "a", "b": "mars"}]}, )" + two + "}"
            << "links.region_pairs[0].b: unknown region \"mars\"";
        QTest::newRow("pair: missing a") << R"({"links": {"region_pairs": [{"b": "a"}]}, )" + two + "}"
                                         << "links.region_pairs[0].a: is required";
        QTest::newRow("pair: same region") << R"({"links": {"region_pairs": [{"a": "a", "b": "a"}]}, )" + two + "}"
                                           << "links.region_pairs[0].b: must name another region than a";
        QTest::newRow("pair: twice")
            << R"({"links": {"region_pairs": [{"a": "a", "b": "b"}, {"a": "b", "b": "a"}]}, )" + two + "}"
            << "links.region_pairs[1]: b <-> a is given twice";
        QTest::newRow("pair: bad latency")
            << R"({"links": {"region_pairs": [{"a": "a", "b": "b", "latency_ms": -5}]}, )" + two + "}"
            << "links.region_pairs[0].latency_ms: must be >= 0";
        QTest::newRow("pair: unknown key")
            << R"({"links": {"region_pairs": [{"a": "a", "b": "b", "jitter_ms": 1}]}, )" + two + "}"
            << "links.region_pairs[0].jitter_ms: unknown key";
        QTest::newRow("pairs not a list") << R"({"links": {"region_pairs": {"a": "a"}}, )" + two + "}"
                                          << "links.region_pairs: must be an array";
        QTest::newRow("center link: unknown region")
            << R"({"links": {"region_center": [{"region": "c", "latency_ms": 5}]}, )" + two + "}"
            << "links.region_center[0].region: unknown region \"c\"";
        QTest::newRow("center link: twice")
            << R"({"links": {"region_center": [{"region": "a"}, {"region": "a"}]}, )" + two + "}"
            << "links.region_center[1]: a <-> center is given twice";
        QTest::newRow("center link: zero bandwidth")
            << R"({"links": {"region_center": [{"region": "a", "bandwidth_mbps": 0}]}, )" + two + "}"
            << "links.region_center[0].bandwidth_mbps: must be > 0";
        QTest::newRow("last mile: zero bandwidth")
            << R"({"regions": [{"name": "a", "edges": [{"last_mile": {"bandwidth_mbps": 0}}]}]})"
            << "regions[0].edges[0].last_mile.bandwidth_mbps: must be > 0";
        QTest::newRow("last mile: loss 1")
            << R"({"regions": [{"name": "a", "edges": [{"last_mile": {"loss": 1}}]}]})"
            << "regions[0].edges[0].last_mile.loss: must be >= 0 and <= 0.99";
        QTest::newRow("last mile: unknown key")
            << R"({"regions": [{"name": "a", "edges": [{"last_mile": {"latency": 3}}]}]})"
            << "regions[0].edges[0].last_mile.latency: unknown key";
        QTest::newRow("planner: min above max") << R"({"planner": {"min_share": 0.2, "max_share": 0.1}, "regions": []})"
                                                << "planner.min_share: must be below planner.max_share";
        QTest::newRow("planner: max above 1") << R"({"planner": {"max_share": 1.5}, "regions": []})"
                                              << "planner.max_share: must be > 0 and <= 1";
        QTest::newRow("planner: bad on_bound") << R"({"planner": {"on_bound": "ask"}, "regions": []})"
                                               << "planner.on_bound: must be one of confirm, refuse, allow";
        QTest::newRow("planner: unknown key") << R"({"planner": {"share": 0.1}, "regions": []})"
                                              << "planner.share: unknown key";
        QTest::newRow("negative edge request cost") << R"({"serving": {"edge_request_ms": -0.1}, "regions": []})"
                                                    << "serving.edge_request_ms: must be >= 0";
        QTest::newRow("NaN center request cost") << R"({"serving": {"center_request_ms": "NaN"}, "regions": []})"
                                                 << "serving.center_request_ms: must be a number";
        // JSON has no NaN or infinity; a number too large for a double is
        // refused as JSON, not thrown past the parser.
        QTest::newRow("overflowing request cost")
            << R"({"serving": {"center_full_request_ms": 1e999}, "regions": []})"
            << "not valid JSON ([json.exception.out_of_range.406] number overflow parsing '1e999')";
        QTest::newRow("negative full request cost")
            << R"({"serving": {"center_full_request_ms": -1}, "regions": []})"
            << "serving.center_full_request_ms: must be >= 0";
        QTest::newRow("zero probe interval") << R"({"serving": {"probe_ms": 0}, "regions": []})"
                                             << "serving.probe_ms: must be > 0";
        QTest::newRow("model not object") << R"({"model": 3, "regions": []})" << "model: must be an object";
        QTest::newRow("decay past the budget") << R"({"model": {"lr_decay_from": 1.5}, "regions": []})"
                                               << "model.lr_decay_from: must be >= 0 and <= 1";
        QTest::newRow("negative final rate") << R"({"model": {"lr_final": -0.1}, "regions": []})"
                                             << "model.lr_final: must be >= 0 and <= 1";
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
