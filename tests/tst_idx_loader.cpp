// The Fashion-MNIST loader on the real Debian files, and on broken copies the
// test writes itself: every failure must be a DataError naming the file.
#include "core/data/data_error.h"
#include "core/data/fashion_mnist.h"
#include "core/data/idx_file.h"

#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <filesystem>
#include <fstream>

using namespace synaptic::data;

namespace {

std::vector<std::uint8_t> gunzip(const std::string &path) {
    gzFile f = gzopen(path.c_str(), "rb");
    std::vector<std::uint8_t> out;
    std::uint8_t buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.insert(out.end(), buf, buf + n);
    gzclose(f);
    return out;
}

void writeGz(const std::string &path, const std::vector<std::uint8_t> &bytes) {
    gzFile f = gzopen(path.c_str(), "wb1");
    if (!bytes.empty())
        gzwrite(f, bytes.data(), unsigned(bytes.size()));
    gzclose(f);
}

void writeRaw(const std::string &path, const std::vector<std::uint8_t> &bytes) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<std::uint8_t> header(std::uint8_t type, std::vector<std::uint32_t> dims) {
    std::vector<std::uint8_t> h{0, 0, type, std::uint8_t(dims.size())};
    for (auto d : dims)
        for (int s = 24; s >= 0; s -= 8)
            h.push_back(std::uint8_t(d >> s));
    return h;
}

} // namespace

class TestIdxLoader : public QObject {
    Q_OBJECT
private:
    std::string m_realDir = resolveDataDir("");
    // Small valid test-split copies (first 100 images) written per test.
    std::vector<std::uint8_t> m_images;
    std::vector<std::uint8_t> m_labels;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(std::filesystem::exists(m_realDir + "/t10k-images-idx3-ubyte.gz"),
                 "dataset-fashion-mnist must be installed (scripts/bootstrap)");
        auto images = gunzip(m_realDir + "/t10k-images-idx3-ubyte.gz");
        auto labels = gunzip(m_realDir + "/t10k-labels-idx1-ubyte.gz");
        m_images = header(8, {100, 28, 28});
        m_images.insert(m_images.end(), images.begin() + 16, images.begin() + 16 + 100 * 784);
        m_labels = header(8, {100});
        m_labels.insert(m_labels.end(), labels.begin() + 8, labels.begin() + 8 + 100);
    }

    void realTrainAndTestSplits() {
        const ImageSet train = loadFashionMnist(m_realDir, Split::Train);
        const ImageSet test = loadFashionMnist(m_realDir, Split::Test);
        QCOMPARE(train.size(), std::size_t(60000));
        QCOMPARE(test.size(), std::size_t(10000));
        QCOMPARE(train.pixels.size(), std::size_t(60000) * 784);
        QCOMPARE(test.pixels.size(), std::size_t(10000) * 784);
        // Fashion-MNIST is balanced: exactly 6000 train and 1000 test per class.
        std::vector<int> trainCounts(10), testCounts(10);
        for (auto l : train.labels) ++trainCounts[l];
        for (auto l : test.labels) ++testCounts[l];
        for (int c = 0; c < 10; ++c) {
            QCOMPARE(trainCounts[c], 6000);
            QCOMPARE(testCounts[c], 1000);
        }
        // The first training image is an ankle boot (label 9) per the dataset docs.
        QCOMPARE(int(train.labels[0]), 9);
        // Pixels are not all zero and use the full byte range.
        const auto [lo, hi] = std::minmax_element(train.pixels.begin(), train.pixels.begin() + 784 * 100);
        QCOMPARE(int(*lo), 0);
        QCOMPARE(int(*hi), 255);
    }

    void limitKeepsFirstSamples() {
        const ImageSet full = loadFashionMnist(m_realDir, Split::Test);
        const ImageSet some = loadFashionMnist(m_realDir, Split::Test, 123);
        QCOMPARE(some.size(), std::size_t(123));
        QVERIFY(std::equal(some.labels.begin(), some.labels.end(), full.labels.begin()));
        QVERIFY(std::equal(some.pixels.begin(), some.pixels.end(), full.pixels.begin()));
    }

    void brokenFiles_data() {
        QTest::addColumn<QString>("which");  // "images" or "labels" file is replaced
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("expected"); // substring of the error message
        QTest::newRow("missing images") << "images" << "delete" << "file not found";
        QTest::newRow("empty labels") << "labels" << "empty" << "too short";
        QTest::newRow("truncated payload") << "images" << "truncate" << "truncated";
        QTest::newRow("truncated header") << "labels" << "short-header" << "truncated IDX header";
        QTest::newRow("bad magic") << "images" << "magic" << "magic";
        QTest::newRow("wrong type") << "images" << "type" << "element type 0x0D";
        QTest::newRow("wrong rank") << "labels" << "rank" << "rank";
        QTest::newRow("wrong image size") << "images" << "dims" << "expected 28x28";
        QTest::newRow("count mismatch") << "labels" << "count" << "labels but";
        QTest::newRow("label out of range") << "labels" << "label" << "outside 0..9";
        QTest::newRow("trailing bytes") << "labels" << "trailing" << "trailing bytes";
        QTest::newRow("corrupt gzip") << "images" << "gzip-garbage" << "corrupt gzip";
        QTest::newRow("huge header") << "images" << "huge" << "implausibly large";
    }

    void brokenFiles() {
        QFETCH(QString, which);
        QFETCH(QString, damage);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        const std::string imagesPath = d + "/t10k-images-idx3-ubyte.gz";
        const std::string labelsPath = d + "/t10k-labels-idx1-ubyte.gz";
        auto images = m_images;
        auto labels = m_labels;
        auto &bytes = which == "images" ? images : labels;
        const std::string target = which == "images" ? imagesPath : labelsPath;

        bool raw = false;
        if (damage == "empty") bytes.clear();
        else if (damage == "truncate") bytes.resize(bytes.size() - 500);
        else if (damage == "short-header") bytes.resize(6);
        else if (damage == "magic") bytes[0] = 0x12;
        else if (damage == "type") bytes[2] = 0x0D;
        else if (damage == "rank") bytes[3] = 2;
        else if (damage == "dims") {
            // A well-formed IDX file of 27x27 images.
            bytes = header(8, {100, 27, 27});
            bytes.resize(bytes.size() + 100 * 27 * 27, 7);
        } else if (damage == "count") {
            // Well-formed, but 99 labels for 100 images.
            bytes = header(8, {99});
            bytes.insert(bytes.end(), m_labels.begin() + 8, m_labels.end() - 1);
        }
        else if (damage == "label") bytes[8 + 42] = 10;
        else if (damage == "trailing") bytes.push_back(1);
        else if (damage == "huge") { bytes[4] = 0xff; bytes[8] = 0xff; }
        else if (damage == "gzip-garbage") raw = true;

        writeGz(imagesPath, images);
        writeGz(labelsPath, labels);
        if (damage == "delete")
            std::filesystem::remove(target);
        if (raw) {
            // A real gzip header followed by garbage: zlib must report it.
            std::vector<std::uint8_t> garbage{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3};
            for (int i = 0; i < 4000; ++i)
                garbage.push_back(std::uint8_t(i * 7919 % 251));
            writeRaw(target, garbage);
        }

        try {
            loadFashionMnist(d, Split::Test);
            QFAIL("loading a broken file must throw DataError");
        } catch (const DataError &e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.contains(QString::fromStdString(which == "images" && damage == "count" ? labelsPath : target)),
                     qPrintable("message does not name the file: " + message));
            QVERIFY2(message.contains(expected), qPrintable("unexpected message: " + message));
        }
    }

    void validCopyLoads() {
        QTemporaryDir dir;
        writeGz(dir.path().toStdString() + "/t10k-images-idx3-ubyte.gz", m_images);
        writeGz(dir.path().toStdString() + "/t10k-labels-idx1-ubyte.gz", m_labels);
        const ImageSet set = loadFashionMnist(dir.path().toStdString(), Split::Test);
        QCOMPARE(set.size(), std::size_t(100));
    }

    void missingDirectoryNamesIt() {
        try {
            loadFashionMnist("/nonexistent/fashion", Split::Train);
            QFAIL("expected DataError");
        } catch (const DataError &e) {
            QVERIFY(QString(e.what()).contains("/nonexistent/fashion"));
            QVERIFY(QString(e.what()).contains("not found"));
        }
    }

    void dataDirResolution() {
        QCOMPARE(resolveDataDir("/explicit"), std::string("/explicit"));
        qputenv("SYNAPTIC_DATA_DIR", "/from/env");
        QCOMPARE(resolveDataDir(""), std::string("/from/env"));
        qunsetenv("SYNAPTIC_DATA_DIR");
        QCOMPARE(resolveDataDir(""), std::string(kDefaultFashionMnistDir));
    }
};

QTEST_APPLESS_MAIN(TestIdxLoader)
#include "tst_idx_loader.moc"
