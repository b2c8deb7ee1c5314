// Timed commands from JSON: names resolve against the config, and every bad
// input is a ConfigError naming the element and the field.
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/knob_commands.h"
#include "core/engine/sim/sim_command.h"

#include <QTest>

using namespace synaptic::engine;
using Kind = SimCommand::Kind;

class TestSimCommand : public QObject {
    Q_OBJECT
    ClusterConfig m_config;

private Q_SLOTS:
    void initTestCase() {
        m_config = loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() + "/tiny_cluster.json");
    }

    void parsesEveryKind() {
        const auto cmds = parseCommands(R"([
            {"at": 1.5, "command": "move_shard", "shard": 3, "region": "us", "to": "us-2"},
            {"command": "set_aggregation_window", "steps": 4},
            {"command": "set_center_sync", "windows": 16},
            {"command": "set_lease_seconds", "seconds": 5},
            {"command": "set_heartbeat_seconds", "seconds": 0.5},
            {"command": "set_link", "from": "eu-0", "to": "center", "latency_ms": 80, "bandwidth_mbps": 10, "loss": 0.01},
            {"command": "kill", "node": "eu-1"},
            {"command": "revive", "node": "eu-1"},
            {"command": "partition_link", "from": "eu-0", "to": "us-0"},
            {"command": "heal_link", "from": "eu-0", "to": "us-0"},
            {"command": "partition_region", "region": "eu"},
            {"command": "heal_region", "region": "eu"},
            {"command": "set_aggregation_window", "ms": 50},
            {"command": "set_confidence_threshold", "threshold": 0.9},
            {"command": "set_confidence_threshold", "threshold": 0.7, "edge": "us-1"}
        ])", "cmds.json", m_config);
        QCOMPARE(cmds.size(), std::size_t(15));
        QCOMPARE(cmds[13].kind, Kind::SetConfidenceThreshold);
        QCOMPARE(cmds[13].node, -1); // every edge
        QCOMPARE(cmds[14].value, 0.7);
        QCOMPARE(cmds[14].node, 4);
        QCOMPARE(cmds[12].kind, Kind::SetAggregationWindowMs);
        QCOMPARE(cmds[12].value, 50.0);
        QCOMPARE(cmds[0].kind, Kind::MoveShard);
        QCOMPARE(cmds[0].at, 1.5);
        QCOMPARE(cmds[0].shard, 3);
        QCOMPARE(cmds[0].region, 1);
        QCOMPARE(cmds[0].node, 5); // us-2: sixth edge in config order
        QCOMPARE(cmds[1].value, 4.0);
        QCOMPARE(cmds[5].kind, Kind::SetLink);
        QCOMPARE(cmds[5].node, 0);
        QCOMPARE(cmds[5].nodeB, -1); // the center
        QCOMPARE(cmds[5].link.latencySeconds, 0.08);
        QCOMPARE(cmds[5].link.bandwidthBitsPerSecond, 10e6);
        QCOMPARE(cmds[6].kind, Kind::KillNode);
        QCOMPARE(cmds[6].node, 1);
        QCOMPARE(cmds[10].region, 0);
        QCOMPARE(QString::fromStdString(cmds[0].describe()), QString("move_shard shard 3 region 1 to edge 5"));
    }

    // Codecs per traffic class, live (issue 14): parsed, described, applied
    // to the config the nodes read, and refused when malformed.
    void setCodecParsesAndApplies() {
        const auto cmds = parseCommands(R"([
            {"command": "set_codec", "class": "center", "codec": "int8"},
            {"command": "set_codec", "class": "gradients", "codec": "topk:0.05"},
            {"command": "set_codec", "class": "values", "codec": "fp16+zstd"},
            {"command": "set_codec", "class": "center", "codec": "topk:0.03+zstd"}
        ])", "cmds.json", m_config);
        QCOMPARE(cmds.size(), std::size_t(4));
        QCOMPARE(cmds[0].kind, Kind::SetCodec);
        QCOMPARE(QString::fromStdString(cmds[0].describe()), QString("set_codec center int8"));
        QCOMPARE(QString::fromStdString(cmds[1].describe()), QString("set_codec gradients topk:0.05"));
        QVERIFY(isKnobCommand(cmds[0]));
        ClusterConfig c = m_config;
        QCOMPARE(QString::fromStdString(applyKnobCommand(c, cmds[0])), QString());
        QCOMPARE(QString::fromStdString(applyKnobCommand(c, cmds[1])), QString());
        QCOMPARE(c.codecs.center.codec, Codec::Int8);
        QCOMPARE(c.codecs.gradients.codec, Codec::TopK);
        QCOMPARE(c.codecs.gradients.topkFraction, 0.05);
        QCOMPARE(c.codecs.values.codec, Codec::Fp32);
        QVERIFY(!c.codecs.center.zstd);
        // The zstd stage rides in the command (a recording or a live command
        // carries it) and is applied with its codec.
        QCOMPARE(QString::fromStdString(cmds[2].describe()), QString("set_codec values fp16+zstd"));
        QCOMPARE(QString::fromStdString(cmds[3].describe()), QString("set_codec center topk:0.03+zstd"));
        QCOMPARE(QString::fromStdString(applyKnobCommand(c, cmds[2])), QString());
        QCOMPARE(QString::fromStdString(applyKnobCommand(c, cmds[3])), QString());
        QCOMPARE(c.codecs.values, parseCodec("fp16+zstd"));
        QCOMPARE(c.codecs.center.codec, Codec::TopK);
        QCOMPARE(c.codecs.center.topkFraction, 0.03);
        QVERIFY(c.codecs.center.zstd);
        QCOMPARE(c.codecs.gradients.zstd, false);
        // A command naming zstd after fp32 (a hand-made or hostile one) is refused.
        SimCommand raw = setCodecCommand(2, parseCodec("int8+zstd"));
        raw.shard = int(Codec::Fp32) | kCodecZstdFlag;
        QVERIFY(QString::fromStdString(applyKnobCommand(c, raw)).contains("lossy"));
        QCOMPARE(QString::fromStdString(raw.describe()), QString("set_codec (invalid)"));
        for (const int shard : {0x200 | int(Codec::Int8), -1, int(Codec::TopK) + 1}) {
            raw.shard = shard;
            QVERIFY2(QString::fromStdString(applyKnobCommand(c, raw)).contains("unknown codec"), qPrintable(QString::number(shard)));
        }
        SimCommand bad = cmds[0];
        bad.region = 7;
        QVERIFY(!applyKnobCommand(c, bad).empty());
        bad = cmds[1];
        bad.value = 0;
        QVERIFY(QString::fromStdString(applyKnobCommand(c, bad)).contains("fraction"));
        for (const char *text : {R"([{"command": "set_codec", "class": "weights", "codec": "int8"}])",
                                 R"([{"command": "set_codec", "class": "center", "codec": "int4"}])",
                                 R"([{"command": "set_codec", "codec": "int8"}])"}) {
            try {
                parseCommands(text, "cmds.json", m_config);
                QFAIL(text);
            } catch (const ConfigError &e) {
                QVERIFY2(QString(e.what()).contains("cmds.json: [0].c"), e.what());
            }
        }
    }

    void errorsNameTheField_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << "[{" << "cmds.json: not valid JSON";
        QTest::newRow("not array") << "{}" << "cmds.json: must be a JSON array";
        QTest::newRow("element") << "[3]" << "cmds.json: [0]: must be an object";
        QTest::newRow("no command") << "[{}]" << "cmds.json: [0].command: must be a string";
        QTest::newRow("unknown command") << R"([{"command": "reboot"}])" << "[0].command: unknown command \"reboot\"";
        QTest::newRow("bad at") << R"([{"command": "kill", "node": "eu-0", "at": -1}])" << "[0].at: must be between";
        QTest::newRow("unknown edge") << R"([{"command": "kill", "node": "mars-1"}])"
                                      << "[0].node: no node named \"mars-1\"";
        QTest::newRow("unknown region") << R"([{"command": "move_shard", "shard": 1, "region": "ap", "to": "eu-0"}])"
                                        << "[0].region: no region named \"ap\"";
        QTest::newRow("missing steps") << R"([{"command": "set_aggregation_window"}])" << "[0].steps: must be a number";
        QTest::newRow("zero steps") << R"([{"command": "set_aggregation_window", "steps": 0}])"
                                    << "[0].steps: must be between 1";
        QTest::newRow("link latency type") << R"([{"command": "set_link", "from": "eu-0", "to": "eu-1", "latency_ms": "x", "bandwidth_mbps": 1}])"
                                           << "[0].latency_ms: must be a number";
        QTest::newRow("threshold range") << R"([{"command": "set_confidence_threshold", "threshold": 1.5}])"
                                         << "[0].threshold: must be between 0";
        QTest::newRow("threshold center") << R"([{"command": "set_confidence_threshold", "threshold": 0.5, "edge": "center"}])"
                                          << "[0].edge: must name an edge";
        QTest::newRow("second element") << R"([{"command": "heal_region", "region": "eu"}, {"command": "kill"}])"
                                        << "[1].node: must be the name of the node";
    }
    void errorsNameTheField() {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        try {
            parseCommands(json.toStdString(), "cmds.json", m_config);
            QFAIL("accepted bad input");
        } catch (const ConfigError &e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestSimCommand)
#include "tst_sim_command.moc"
