// Config files: every malformed input gives a ConfigError naming the file and
// the field; flags' validation names the field too.
#include "core/engine/train_config.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace synaptic::engine;

class TestTrainConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsAllFields() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("c.json").toStdString();
        std::ofstream(path) << R"({"training": {"epochs": 3, "subset": 500, "test_subset": 200, "batch": 32,
            "lr": 0.002, "lr_schedule": "constant", "exit_weight": 0.5, "threads": 1, "device": "cpu",
            "seed": 9, "progress_every": 5, "eval_every": 50}, "data": {"dir": "/d"}})";
        const TrainConfig c = loadTrainConfig(path);
        QCOMPARE(c.epochs, 3);
        QCOMPARE(c.subset, std::size_t(500));
        QCOMPARE(c.testSubset, std::size_t(200));
        QCOMPARE(c.batchSize, 32);
        QCOMPARE(c.learningRate, 0.002);
        QCOMPARE(c.lrSchedule, std::string("constant"));
        QCOMPARE(c.exitWeight, 0.5);
        QCOMPARE(c.threads, 1);
        QCOMPARE(c.device, std::string("cpu"));
        QCOMPARE(c.seed, std::uint64_t(9));
        QCOMPARE(c.progressEverySteps, 5);
        QCOMPARE(c.evalEverySteps, 50);
        QCOMPARE(c.dataDir, std::string("/d"));
    }

    void missingKeysKeepBase() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("c.json").toStdString();
        std::ofstream(path) << R"({"training": {"epochs": 2}})";
        TrainConfig base;
        base.batchSize = 128;
        const TrainConfig c = loadTrainConfig(path, base);
        QCOMPARE(c.epochs, 2);
        QCOMPARE(c.batchSize, 128);
    }

    void errors_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << "{epochs: 3" << "not valid JSON";
        QTest::newRow("array at top") << "[1,2]" << "must be a JSON object";
        QTest::newRow("unknown top key") << R"({"trainng": {}})" << "trainng: unknown key";
        QTest::newRow("unknown field") << R"({"training": {"epoch": 3}})" << "training.epoch: unknown key";
        QTest::newRow("wrong type") << R"({"training": {"batch": "big"}})" << "training.batch: must be an integer";
        QTest::newRow("fraction for integer") << R"({"training": {"epochs": 2.5}})" << "training.epochs: must be an integer";
        QTest::newRow("string for number") << R"({"training": {"lr": "fast"}})" << "training.lr: must be a number";
        QTest::newRow("bool for number") << R"({"training": {"lr": true}})" << "training.lr: must be a number";
        QTest::newRow("number for string") << R"({"training": {"device": 1}})" << "training.device: must be a string";
        QTest::newRow("integer overflow") << R"({"training": {"epochs": 4294967297}})" << "training.epochs: is too large";
        QTest::newRow("negative overflow") << R"({"training": {"batch": -9999999999}})" << "training.batch: is out of range";
        QTest::newRow("cuda ordinal junk") << R"({"training": {"device": "cuda:abc"}})" << "unknown device 'cuda:abc'";
        QTest::newRow("negative count") << R"({"training": {"subset": -5}})" << "training.subset: must not be negative";
        QTest::newRow("zero epochs") << R"({"training": {"epochs": 0}})" << "epochs: must be between";
        QTest::newRow("huge batch") << R"({"training": {"batch": 1000000}})" << "batch: must be between";
        QTest::newRow("bad lr") << R"({"training": {"lr": -1}})" << "lr: must be";
        QTest::newRow("bad schedule") << R"({"training": {"lr_schedule": "step"}})" << "lr_schedule";
        QTest::newRow("bad device") << R"({"training": {"device": "tpu"}})" << "unknown device 'tpu'";
        QTest::newRow("data not object") << R"({"data": "/x"})" << "data: must be an object";
        QTest::newRow("training not object") << R"({"training": 5})" << "training: must be an object";
    }
    void errors() {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.json").toStdString();
        std::ofstream(path) << json.toStdString();
        try {
            loadTrainConfig(path);
            QFAIL("expected ConfigError");
        } catch (const ConfigError &e) {
            const QString msg = e.what();
            QVERIFY2(msg.startsWith(QString::fromStdString(path)), qPrintable(msg));
            QVERIFY2(msg.contains(expected), qPrintable(msg));
        }
    }

    void missingFile() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, loadTrainConfig("/nonexistent/config.json"));
    }
};

QTEST_APPLESS_MAIN(TestTrainConfig)
#include "tst_train_config.moc"
