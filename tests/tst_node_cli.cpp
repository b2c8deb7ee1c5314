// The real synaptic-node process: exit codes and messages for bad input, and
// a small real run that writes a complete JSON report.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Result {
    int exitCode;
    QString out;
    QString err;
};

Result runNode(const QStringList &args) {
    QProcess p;
    p.start(qEnvironmentVariable("SYNAPTIC_NODE"), args);
    if (!p.waitForFinished(300000))
        qFatal("synaptic-node did not finish");
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestNodeCli : public QObject {
    Q_OBJECT
    // A live center's token file, for the tests that only start one.
    static QString writeToken(const QTemporaryDir &dir) {
        QFile token(dir.filePath("token"));
        if (!token.open(QIODevice::WriteOnly))
            return {};
        token.write("test-token-0123456789\n");
        return token.fileName();
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("SYNAPTIC_NODE").isEmpty(), "run through ctest"); }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << 2 << "command: missing";
        QTest::newRow("unknown command") << QStringList{"fly"} << 2 << "unknown command 'fly'";
        QTest::newRow("unknown flag") << QStringList{"train", "--bogus", "1"} << 2 << "--bogus: unknown option";
        QTest::newRow("missing value") << QStringList{"train", "--epochs"} << 2 << "--epochs: needs a value";
        QTest::newRow("not a number") << QStringList{"train", "--epochs", "five"} << 2 << "expects a number, got 'five'";
        QTest::newRow("trailing junk") << QStringList{"train", "--batch=64x"} << 2 << "--batch: expects a number";
        QTest::newRow("zero epochs") << QStringList{"train", "--epochs", "0"} << 2 << "--epochs: must be between";
        QTest::newRow("bad device") << QStringList{"train", "--device", "tpu"} << 2 << "unknown device 'tpu'";
        QTest::newRow("bad cuda ordinal") << QStringList{"train", "--device", "cuda:x"} << 2 << "unknown device 'cuda:x'";
        QTest::newRow("cpu ordinal") << QStringList{"train", "--device", "cpu:0"} << 2 << "unknown device 'cpu:0'";
        QTest::newRow("flag name in message") << QStringList{"train", "--exit-weight", "-1"} << 2
                                              << "--exit-weight: must be between";
        QTest::newRow("missing config") << QStringList{"train", "--config", "/nonexistent.json"} << 2
                                        << "/nonexistent.json: cannot open";
        QTest::newRow("missing data") << QStringList{"train", "--data", "/nonexistent/fm", "--subset", "10"} << 1
                                      << "/nonexistent/fm: data directory not found";
        QTest::newRow("sim without config") << QStringList{"sim", "--steps", "3"} << 2 << "--config: is required";
        QTest::newRow("sim unknown strategy") << QStringList{"sim", "--config", "x.json", "--compare", "synaptic,raft"}
                                              << 2 << "--compare: unknown strategy 'raft'";
        QTest::newRow("sim empty list") << QStringList{"sim", "--config", "x.json", "--compare", "synaptic,"} << 2
                                        << "--compare: expects a comma-separated list";
        QTest::newRow("sim two strategies") << QStringList{"sim", "--config", "x.json", "--strategy", "gossip,diloco"}
                                            << 2 << "--strategy: takes one strategy";
        QTest::newRow("sim steps and seconds")
            << QStringList{"sim", "--config", "x.json", "--steps", "3", "--virtual-seconds", "2"} << 2
            << "give either --steps or --virtual-seconds";
        QTest::newRow("sim zero steps") << QStringList{"sim", "--config", "x.json", "--steps", "0"} << 2
                                        << "--steps: must be at least 1";
        QTest::newRow("sim target") << QStringList{"sim", "--config", "x.json", "--target-accuracy", "1.5"} << 2
                                    << "--target-accuracy: must be in (0, 1]";
        QTest::newRow("sim missing config") << QStringList{"sim", "--config", "/nonexistent.json"} << 2
                                            << "/nonexistent.json: cannot open";
        QTest::newRow("sim bad commands") << QStringList{"sim", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") +
                                                         "/tiny_cluster.json", "--commands", "/nonexistent.json"}
                                          << 2 << "/nonexistent.json: cannot open";
        QTest::newRow("center state dir") << QStringList{"center", "--config", "x.json", "--insecure", "--token-file",
                                                         "t", "--state-dir", "/tmp/s"}
                                          << 2 << "--state-dir: is for edges";
        QTest::newRow("cluster reuses a state dir")
            << QStringList{"cluster", "--config", "x.json", "--insecure", "--token-file", "t", "--state-dir",
                           qEnvironmentVariable("SYNAPTIC_TEST_DATA")}
            << 2 << "is not empty: a new run starts from no state";
        QTest::newRow("empty state dir") << QStringList{"edge", "--center", "127.0.0.1:1", "--name", "eu-0", "--state-dir",
                                                        ""}
                                         << 2 << "--state-dir: needs a directory";
        QTest::newRow("info without file") << QStringList{"info"} << 2 << "info: needs a recording file";
        QTest::newRow("info flag for file") << QStringList{"info", "--json"} << 2 << "info: needs a recording file";
        QTest::newRow("export nothing") << QStringList{"export", "x.synrec"} << 2 << "export: nothing to write";
        QTest::newRow("rerun bad run") << QStringList{"rerun", "x.synrec", "--run", "one"} << 2
                                       << "--run: expects a number";
        QTest::newRow("info missing file") << QStringList{"info", "/nonexistent.synrec"} << 1
                                           << "/nonexistent.synrec: cannot open the recording";
        QTest::newRow("unwritable recording")
            << QStringList{"sim", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json",
                           "--steps", "1", "--record", "/nonexistent/dir/r.synrec"}
            << 1 << "/nonexistent/dir/r.synrec: cannot create the recording";
        const QString tiny = qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json";
        QTest::newRow("serve without config") << QStringList{"serve", "--rate", "5"} << 2 << "--config: is required";
        QTest::newRow("serve unknown edge") << QStringList{"serve", "--config", tiny, "--edge-threshold", "mars-0=0.5"}
                                            << 2 << "--edge-threshold: no edge named 'mars-0'";
        QTest::newRow("serve bad edge threshold") << QStringList{"serve", "--config", tiny, "--edge-threshold", "eu-0"}
                                                  << 2 << "--edge-threshold: expects EDGE=X";
        QTest::newRow("serve bad measure") << QStringList{"serve", "--config", tiny, "--confidence", "margin"} << 2
                                           << "--confidence: unknown measure 'margin'";
        QTest::newRow("serve threshold range") << QStringList{"serve", "--config", tiny, "--threshold", "1.5"} << 2
                                               << "--threshold: must be between 0 and 1";
        QTest::newRow("serve zero rate") << QStringList{"serve", "--config", tiny, "--rate", "0"} << 2
                                         << "--rate: must be > 0";
        QTest::newRow("serve model and save") << QStringList{"serve", "--config", tiny, "--model", "a", "--save-model", "b"}
                                              << 2 << "--save-model: saves a model trained here";
        QTest::newRow("serve missing model") << QStringList{"serve", "--config", tiny, "--model", "/nonexistent.synmodel"}
                                             << 1 << "/nonexistent.synmodel: cannot open";
        QTest::newRow("sim model with compare")
            << QStringList{"sim", "--config", tiny, "--compare", "synaptic,gossip", "--model", "m.synmodel"} << 2
            << "--model: saves one strategy's model";
        QTest::newRow("sim unknown task") << QStringList{"sim", "--config", tiny, "--task", "imagenet"} << 2
                                          << "unknown task 'imagenet' (known: fashion-mnist, langid)";
        QTest::newRow("langid with record") << QStringList{"sim", "--config", tiny, "--task", "langid", "--record", "r.syn"}
                                            << 2 << "--record: is not taken by the hot-update scenario (--task langid without --strategy or --compare)";
        const QString tinyLangId = qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_langid_cluster.json";
        QTest::newRow("config chooses langid")
            << QStringList{"sim", "--config", tinyLangId, "--steps", "5"} << 2
            << "--steps: is not taken by the hot-update scenario (a config whose task is langid without --strategy";
        QTest::newRow("serve a langid config") << QStringList{"serve", "--config", tinyLangId} << 2
                                               << "task: serve runs the fashion-mnist task";
        QTest::newRow("config's langid without fortunes")
            << QStringList{"sim", "--config", tinyLangId, "--data", "/nonexistent/fortunes"} << 1
            << "/nonexistent/fortunes: no such folder";
        QTest::newRow("hot updates off without langid") << QStringList{"sim", "--config", tiny, "--no-hot-updates"} << 2
                                                        << "--no-hot-updates: applies to the hot-update scenario only";
        QTest::newRow("langid without fortunes")
            << QStringList{"sim", "--config", tiny, "--task", "langid", "--data", "/nonexistent/fortunes"} << 1
            << "/nonexistent/fortunes: no such folder";
        QTest::newRow("unwritable report")
            << QStringList{"train", "--subset", "64", "--test-subset", "64", "--report", "/nonexistent/dir/r.json"} << 1
            << "/nonexistent/dir/r.json";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const Result r = runNode(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        if (exitCode == 2)
            QVERIFY2(r.err.contains("usage: synaptic-node"), "usage errors show the usage");
    }

    void malformedConfigFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"training": {"batch": 0}})");
        f.close();
        const Result r = runNode({"train", "--config", path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(path) && r.err.contains("batch"), qPrintable(r.err));
    }

    void configWithEqualsSign() {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"training": {"epochs": "many"}})");
        f.close();
        const Result r = runNode({"train", "--config=" + path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("training.epochs"), qPrintable(r.err));
    }

    void simCompareWritesReport() {
        QTemporaryDir dir;
        const QString report = dir.filePath("sim.json");
        const QString commands = dir.filePath("commands.json");
        QFile c(commands);
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write(R"([{"at": 0.2, "command": "set_link", "from": "eu-0", "to": "center", "latency_ms": 80, "bandwidth_mbps": 50}])");
        c.close();
        const Result r = runNode({"sim", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json",
                                  "--compare", "synaptic,param_server", "--steps", "4", "--threads", "2", "--seed", "3",
                                  "--commands", commands, "--report", report});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("strategy") && r.out.contains("param_server") && r.out.contains("ratios against"),
                 qPrintable(r.out));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(o["seed"].toInt(), 3);
        const QJsonArray strategies = o["strategies"].toArray();
        QCOMPARE(strategies.size(), 2);
        QCOMPARE(strategies[0].toObject()["strategy"].toString(), QString("synaptic"));
        for (const auto &entry : strategies) {
            const QJsonObject s = entry.toObject();
            for (const char *key : {"final_accuracy", "time_to_target_s", "bytes_to_center", "wan_bytes", "total_bytes",
                                    "samples", "wall_seconds", "curve", "event_hash"})
                QVERIFY2(s.contains(key), key);
            QVERIFY(s["time_to_target_s"].isNull()); // 4 steps never reach 0.88
            QCOMPARE(s["samples"].toInt(), 6 * 4 * 32);
            QVERIFY(s["bytes_to_center"].toDouble() > 0);
            QVERIFY(s["total_bytes"].toDouble() >= s["wan_bytes"].toDouble());
            // What the WAN bytes are made of, kind by kind, under the keys the README names.
            const QJsonObject kinds = s["wan_by_kind"].toObject();
            QVERIFY(!kinds.isEmpty());
            qint64 sum = 0;
            for (const auto &kind : kinds) {
                const QJsonObject k = kind.toObject();
                for (const char *key : {"messages", "bytes", "tensor_bytes", "tensor_elements", "batch_norm_bytes"})
                    QVERIFY2(k.contains(key), key);
                sum += k["bytes"].toInteger();
            }
            QCOMPARE(sum, s["wan_bytes"].toInteger());
        }
    }

    void simLangIdWritesReport() {
        QTemporaryDir dir;
        const QString report = dir.filePath("langid.json");
        const Result r = runNode({"sim", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json",
                                  "--task", "langid", "--virtual-seconds", "1.5", "--threads", "2", "--report", report});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("langid, hot updates") && r.out.contains("new rows at every edge"), qPrintable(r.out));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(o["hot_updates"].toBool());
        QVERIFY(o["steps"].toInt() > 0);
        QVERIFY(o["bytes"].toObject()["owner_to_owner"].toDouble() > 0);
        QCOMPARE(o["lag_violations"].toInt(), 0);
        QVERIFY(o["evals"].toArray().size() > 3);
    }

    // Issue 16 §1 from the command line: the config chooses langid, --strategy
    // runs it on a training strategy (not the hot-update scenario).
    void simLangIdOnAStrategy() {
        QTemporaryDir dir;
        const QString report = dir.filePath("langid-ps.json");
        const Result r = runNode({"sim", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") +
                                  "/tiny_langid_cluster.json", "--strategy", "param_server", "--steps", "3",
                                  "--threads", "2", "--report", report});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("param_server") && !r.out.contains("hot updates"), qPrintable(r.out));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray strategies = QJsonDocument::fromJson(f.readAll()).object()["strategies"].toArray();
        QCOMPARE(strategies.size(), 1);
        const QJsonObject s = strategies[0].toObject();
        QCOMPARE(s["task"].toString(), QString("langid"));
        QCOMPARE(s["samples"].toInt(), 6 * 3 * 32);
        QVERIFY(s["final_accuracy"].toDouble() > 0);
    }

    // The live processes train Fashion-MNIST only: a langid config is refused
    // by name before anything listens.
    void liveCenterRefusesLangId() {
        QTemporaryDir dir;
        const QString token = writeToken(dir);
        const Result r = runNode({"center", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") +
                                  "/tiny_langid_cluster.json", "--insecure", "--token-file", token,
                                  "--listen", "127.0.0.1:0"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("task: \"langid\" runs only in the simulator"), qPrintable(r.err));
    }

    // Under hub merges the edges that host hubs keep their merges in a
    // state directory: a live cluster without one is refused by name.
    void clusterWithHubMergesNeedsAStateDir() {
        QTemporaryDir dir;
        QFile tiny(qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json");
        QVERIFY(tiny.open(QIODevice::ReadOnly));
        QJsonObject config = QJsonDocument::fromJson(tiny.readAll()).object();
        QJsonObject knobs = config["knobs"].toObject();
        knobs["hub_merges"] = true;
        config["knobs"] = knobs;
        QFile hubs(dir.filePath("hubs.json"));
        QVERIFY(hubs.open(QIODevice::WriteOnly));
        hubs.write(QJsonDocument(config).toJson());
        hubs.close();
        const Result r = runNode({"cluster", "--config", hubs.fileName(), "--steps", "4", "--insecure", "--token-file",
                                  writeToken(dir)});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--state-dir: is required under knobs.hub_merges"), qPrintable(r.err));
    }

    void version() {
        const Result r = runNode({"--version"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("synaptic-node 0."));
        QVERIFY(r.out.contains("LibTorch 1.") || r.out.contains("LibTorch 2."));
        QVERIFY(r.out.contains("no Qt"));
    }

    void help() {
        const Result r = runNode({"--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("--epochs"));
    }

    void trainWritesReport() {
        QTemporaryDir dir;
        const QString report = dir.filePath("report.json");
        const Result r = runNode({"train", "--epochs", "1", "--subset", "2048", "--test-subset", "1000", "--threads",
                                  "2", "--seed", "5", "--device", "cpu", "--report", report});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("report written to " + report), qPrintable(r.out));
        // Not a terminal here: plain progress lines, no carriage-return bar.
        QVERIFY(r.err.contains("epoch 1/1 step"));
        QVERIFY(!r.err.contains('\r'));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        for (const char *key : {"test_accuracy", "exit_test_accuracy", "epochs", "samples_per_second", "wall_seconds",
                                "device", "threads", "blas_threads", "loss_curve"})
            QVERIFY2(o.contains(key), key);
        QVERIFY(o["test_accuracy"].toDouble() > 0.5 && o["test_accuracy"].toDouble() <= 1.0);
        QCOMPARE(o["epochs"].toInt(), 1);
        QCOMPARE(o["threads"].toInt(), 2);
        // OpenBLAS's pool follows --threads unless the environment fixes it
        // (0: the BLAS is another; core/engine/compute_threads.h).
        const int blas = o["blas_threads"].toInt(-1);
        QVERIFY(blas >= 0);
        if (blas > 0 && !qEnvironmentVariableIsSet("OPENBLAS_NUM_THREADS") && !qEnvironmentVariableIsSet("GOTO_NUM_THREADS"))
            QCOMPARE(blas, 2);
        QCOMPARE(o["device"].toString(), QString("cpu"));
        QCOMPARE(o["loss_curve"].toArray().size(), 32 / 20 + 1); // reports at step 20 and the epoch end (32)
        QVERIFY(!QFile::exists(report + ".tmp"));
    }

    // train --model saves a model; serve loads it and serves a real request
    // stream edge-exit and center-only; a damaged copy is refused.
    void trainThenServe() {
        QTemporaryDir dir;
        const QString model = dir.filePath("m.synmodel");
        Result r = runNode({"train", "--epochs", "1", "--subset", "3000", "--test-subset", "500", "--threads", "2",
                            "--device", "cpu", "--model", model});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QFile::exists(model));
        const QString report = dir.filePath("serve.json");
        r = runNode({"serve", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json", "--model",
                     model, "--rate", "20", "--virtual-seconds", "5", "--threshold", "0.8", "--edge-threshold",
                     "us-2=1", "--threads", "2", "--report", report});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("edge-exit") && r.out.contains("center-only") && r.out.contains("<- operating point"),
                 qPrintable(r.out));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(o["threshold"].toDouble(), 0.8);
        const QJsonObject edgeExit = o["edge_exit"].toObject(), centerOnly = o["center_only"].toObject();
        const double requests = edgeExit["requests"].toDouble();
        QVERIFY(requests > 400 && requests < 800); // 6 edges x 20/s x 5 s = 600 expected
        QCOMPARE(centerOnly["requests"].toDouble(), requests); // the same stream
        QCOMPARE(centerOnly["answered_at_edge"].toDouble(), 0.0);
        QCOMPARE(centerOnly["bytes_to_center"].toDouble(), requests * (8 + 784));
        QVERIFY(edgeExit["bytes_to_center"].toDouble() < centerOnly["bytes_to_center"].toDouble());
        // us-2 (threshold 1) answers nothing itself.
        const QJsonArray atEdge = o["edge_exit"].toObject()["per_edge"].toObject()["answered_at_edge"].toArray();
        QCOMPARE(atEdge.size(), 6);
        QCOMPARE(atEdge[5].toDouble(), 0.0);
        QVERIFY(atEdge[0].toDouble() > 0);
        QCOMPARE(o["sweep"].toArray().size(), 23);

        QFile m(model);
        QVERIFY(m.open(QIODevice::ReadWrite));
        m.seek(m.size() / 2);
        const char flipped = char(m.peek(1)[0] ^ 0x10);
        m.write(&flipped, 1);
        m.close();
        r = runNode({"serve", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json", "--model",
                     model});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(model + ": checksum mismatch"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestNodeCli)
#include "tst_node_cli.moc"
