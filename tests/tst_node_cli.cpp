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
                                "device", "threads", "loss_curve"})
            QVERIFY2(o.contains(key), key);
        QVERIFY(o["test_accuracy"].toDouble() > 0.5 && o["test_accuracy"].toDouble() <= 1.0);
        QCOMPARE(o["epochs"].toInt(), 1);
        QCOMPARE(o["threads"].toInt(), 2);
        QCOMPARE(o["device"].toString(), QString("cpu"));
        QCOMPARE(o["loss_curve"].toArray().size(), 32 / 20 + 1); // reports at step 20 and the epoch end (32)
        QVERIFY(!QFile::exists(report + ".tmp"));
    }
};

QTEST_GUILESS_MAIN(TestNodeCli)
#include "tst_node_cli.moc"
