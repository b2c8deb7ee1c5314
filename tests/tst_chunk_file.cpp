// The recording container on real files: what is written reads back; a
// killed writer's file reads up to the last whole chunk with a warning
// naming the offset; a corrupt chunk is caught by its checksum, reported
// with its offset, and the chunks after it still read; garbage and a newer
// format are clear errors.
#include "core/session/chunk_file.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <stdexcept>

using namespace synaptic::session;

class TestChunkFile : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string path(const char *name) const { return m_dir.filePath(name).toStdString(); }

    // Three chunks of compressible text, 1..3 s.
    std::vector<std::uint64_t> writeThree(const std::string &file) {
        ChunkWriter w(file, R"({"seed": 1})");
        std::vector<std::uint64_t> offsets;
        for (int i = 1; i <= 3; ++i) {
            offsets.push_back(w.bytesWritten());
            w.write(std::string(5000, char('a' + i)) + std::to_string(i), i, i + 0.5);
        }
        return offsets;
    }

    static QByteArray load(const std::string &file) {
        QFile f(QString::fromStdString(file));
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }
    static void save(const std::string &file, const QByteArray &bytes) {
        QFile f(QString::fromStdString(file));
        f.open(QIODevice::WriteOnly);
        f.write(bytes);
    }

private Q_SLOTS:
    void roundTrip() {
        const auto file = path("ok.rec");
        writeThree(file);
        const ChunkFile f = readChunkFile(file);
        QCOMPARE(f.formatVersion, kFormatVersion);
        QCOMPARE(f.metadata, std::string(R"({"seed": 1})"));
        QCOMPARE(f.chunks.size(), std::size_t(3));
        QVERIFY(f.problems.empty());
        QCOMPARE(f.chunks[1].raw, std::string(5000, 'c') + "2");
        QCOMPARE(f.chunks[2].firstTime, 3.0);
        QCOMPARE(f.chunks[2].lastTime, 3.5);
        QVERIFY(load(file).size() < 3 * 5000 / 10); // zstd did compress
    }

    void truncatedFileReadsUpToTheLastWholeChunk() {
        const auto file = path("cut.rec");
        const auto offsets = writeThree(file);
        const QByteArray whole = load(file);
        save(file, whole.left(qsizetype(offsets[2]) + 20)); // killed while writing the third chunk
        const ChunkFile f = readChunkFile(file);
        QCOMPARE(f.chunks.size(), std::size_t(2));
        QCOMPARE(f.problems.size(), std::size_t(1));
        QCOMPARE(f.problems[0].offset, offsets[2]);
        QVERIFY(QString::fromStdString(f.problems[0].what).contains("truncated"));
    }

    void corruptChunkIsSkippedAndTheRestReads() {
        const auto file = path("bad.rec");
        const auto offsets = writeThree(file);
        QByteArray bytes = load(file);
        bytes[qsizetype(offsets[1]) + 40] = char(bytes[qsizetype(offsets[1]) + 40] ^ 0x5a); // inside chunk 2's data
        save(file, bytes);
        const ChunkFile f = readChunkFile(file);
        QCOMPARE(f.chunks.size(), std::size_t(2));
        QCOMPARE(f.chunks[1].raw, std::string(5000, 'd') + "3");
        QCOMPARE(f.problems.size(), std::size_t(1));
        QCOMPARE(f.problems[0].offset, offsets[1]);
        QVERIFY(QString::fromStdString(f.problems[0].what).contains("checksum"));
    }

    void brokenFramingResyncsOnTheNextChunk() {
        const auto file = path("frame.rec");
        const auto offsets = writeThree(file);
        QByteArray bytes = load(file);
        bytes[qsizetype(offsets[1])] = 'X'; // chunk 2's marker
        save(file, bytes);
        const ChunkFile f = readChunkFile(file);
        QCOMPARE(f.chunks.size(), std::size_t(2));
        QCOMPARE(f.chunks[1].offset, offsets[2]);
        QCOMPARE(f.problems[0].offset, offsets[1]);
    }

    void garbageAndFutureVersionsAreClearErrors() {
        const auto junk = path("junk.rec");
        save(junk, "this is not a recording at all");
        try {
            readChunkFile(junk);
            QFAIL("garbage was accepted");
        } catch (const std::runtime_error &e) {
            QVERIFY(QString(e.what()).contains("not a Synaptic recording"));
            QVERIFY(QString(e.what()).contains("junk.rec"));
        }
        const auto future = path("future.rec");
        writeThree(future);
        QByteArray bytes = load(future);
        bytes[10] = 9; // minimum readable version 9
        save(future, bytes);
        try {
            readChunkFile(future);
            QFAIL("a newer format was accepted");
        } catch (const std::runtime_error &e) {
            QVERIFY2(QString(e.what()).contains("needs a reader of format 9"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, readChunkFile(path("missing.rec")));
    }
};

QTEST_APPLESS_MAIN(TestChunkFile)
#include "tst_chunk_file.moc"
