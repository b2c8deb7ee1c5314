// Bad recordings (issue 5), on real files written by SessionRecorder and
// then damaged on disk: a truncated file (a killed writer) reads up to the
// last whole chunk with a warning naming the offset; a corrupt chunk is
// caught by its checksum, reported with its offset, and the rest still reads;
// a missing trailer or a footer index that points at garbage falls back to a
// scan; garbage and a future version are clear errors naming the file. And
// the same through the real synaptic-node process: info and export exit
// codes (0 ok, 1 unreadable, 2 usage, 3 damaged) and their messages.
#include "core/session/chunk_file.h"
#include "core/session/record_stream.h"
#include "core/session/session_file.h"
#include "core/session/session_recorder.h"

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_events.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <stdexcept>

using namespace synaptic;
using namespace synaptic::session;

namespace {

constexpr qsizetype kChunkHeader = 32; // chunk_file.h: "CHNK", 3 x u32, 2 x f64
constexpr qsizetype kTrailer = 16;     // u64 index offset + "SYNIDX\r\n"

QByteArray load(const std::string &file) {
    QFile f(QString::fromStdString(file));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", file.c_str());
    return f.readAll();
}

void save(const std::string &file, const QByteArray &bytes) {
    QFile f(QString::fromStdString(file));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
        qFatal("cannot write %s", file.c_str());
}

std::uint32_t storedLength(const QByteArray &bytes, std::uint64_t chunkOffset) {
    std::uint32_t n = 0;
    std::memcpy(&n, bytes.constData() + chunkOffset + 4, 4);
    return n;
}

std::vector<std::string> describe(const std::vector<engine::SimEvent> &events) {
    std::vector<std::string> out;
    out.reserve(events.size());
    for (const auto &e : events)
        out.push_back(engine::describeEvent(e));
    return out;
}

// The problem at `offset` whose text contains `needle`, if any.
const ReadProblem *findProblem(const std::vector<ReadProblem> &problems, std::uint64_t offset, const char *needle) {
    for (const auto &p : problems)
        if (p.offset == offset && p.what.find(needle) != std::string::npos)
            return &p;
    return nullptr;
}

QByteArray listProblems(const std::vector<ReadProblem> &problems) {
    QByteArray out;
    for (const auto &p : problems)
        out += "byte " + QByteArray::number(qulonglong(p.offset)) + ": " + QByteArray::fromStdString(p.what) + "; ";
    return out;
}

struct Result {
    int exitCode;
    QString out;
    QString err;
};

Result runNode(const QStringList &args) {
    QProcess p;
    p.start(qEnvironmentVariable("SYNAPTIC_NODE"), args);
    if (!p.waitForFinished(120000))
        qFatal("synaptic-node did not finish");
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestSessionBadFiles : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string m_intact;
    QByteArray m_bytes;                  // the intact file
    std::vector<ChunkInfo> m_chunks;     // its footer index
    std::vector<std::string> m_events;   // every event of run 0, described
    std::uint64_t m_indexOffset = 0;
    std::size_t m_damaged = 0;           // the middle data chunk the tests damage

    std::string path(const char *name) const { return m_dir.filePath(name).toStdString(); }
    const ChunkInfo &damaged() const { return m_chunks[m_damaged]; }

    // The intact run's events without those of the chunks at `skipped`.
    std::vector<std::string> eventsWithout(std::initializer_list<std::size_t> skipped) const {
        std::vector<bool> drop(m_events.size(), false);
        for (std::size_t k : skipped)
            for (std::uint64_t i = 0; i < m_chunks[k].events; ++i)
                drop[std::size_t(m_chunks[k].firstEvent + i)] = true;
        std::vector<std::string> out;
        for (std::size_t i = 0; i < m_events.size(); ++i)
            if (!drop[i])
                out.push_back(m_events[i]);
        return out;
    }
    std::vector<std::string> eventsBefore(const ChunkInfo &chunk) const {
        return {m_events.begin(), m_events.begin() + std::ptrdiff_t(chunk.firstEvent)};
    }

    // The intact file with the middle data chunk's stored bytes damaged.
    QByteArray flipped() const {
        QByteArray bytes = m_bytes;
        const qsizetype at = qsizetype(damaged().offset) + kChunkHeader + storedLength(bytes, damaged().offset) / 2;
        bytes[at] = char(bytes[at] ^ 0x5a);
        return bytes;
    }
    // The intact file cut in the middle of the damaged chunk's stored bytes.
    QByteArray truncated() const {
        return m_bytes.left(qsizetype(damaged().offset) + kChunkHeader + storedLength(m_bytes, damaged().offset) / 2);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // A real recording: a run of synthetic but well-formed engine events,
        // in small chunks (many of them, keyframes every half virtual second).
        const QString data = qEnvironmentVariable("SYNAPTIC_TEST_DATA");
        QVERIFY2(!data.isEmpty(), "SYNAPTIC_TEST_DATA is not set (run through ctest)");
        const auto config = engine::loadClusterConfig((data + "/tiny_cluster.json").toStdString());
        m_intact = path("intact.rec");
        RecorderOptions options;
        options.chunkRawBytes = 512;
        options.chunkWallSeconds = 3600; // chunks cut by size only: the same file every time
        options.keyframeEverySeconds = 0.5;
        std::vector<engine::SimEvent> recorded;
        {
            SessionRecorder recorder(m_intact, "tst_session_bad_files", options);
            engine::SimOptions simOptions;
            simOptions.stepsPerEdge = 5;
            recorder.beginRun(config, simOptions, nullptr);
            for (int i = 0; i < 300; ++i) {
                const double t = 0.01 * (i + 1);
                recorded.push_back(engine::MetricEvent{t, i % 2 ? "global" : "region:eu", std::uint64_t(32 * i),
                                                       2.3 - 0.001 * i, 0.1 + 0.002 * i, 0.05 + 0.001 * i});
                recorded.push_back(engine::LinkBytesEvent{t, 0.01, i % 6, (i + 1) % 6, std::uint64_t(1000 + 7 * i)});
                recorded.push_back(engine::LeaseEvent{t, i % 6, i % 3 ? "training" : "catching_up", std::uint64_t(i / 6)});
            }
            for (const auto &e : recorded)
                recorder.record(e);
            engine::StrategyResult result;
            result.strategy = config.strategy;
            result.virtualSeconds = 3.0;
            result.events = recorded.size();
            recorder.endRun(result);
            recorder.close();
            const auto stats = recorder.stats();
            QVERIFY2(stats.error.empty(), stats.error.c_str());
            QCOMPARE(stats.coalesced, std::uint64_t(0));
            QCOMPARE(stats.events, std::uint64_t(recorded.size()));
        }
        m_events = describe(recorded);
        m_bytes = load(m_intact);

        SessionFile file(m_intact);
        QVERIFY(file.indexed());
        QVERIFY2(file.problems().empty(), listProblems(file.problems()).constData());
        m_chunks = file.chunks();
        QVERIFY2(m_chunks.size() >= 20, QByteArray::number(qulonglong(m_chunks.size())).constData());
        m_damaged = m_chunks.size() / 2;
        QVERIFY(damaged().events > 0);
        ChunkReader reader(m_intact);
        QVERIFY(reader.indexOffset().has_value());
        m_indexOffset = *reader.indexOffset();
        QVERIFY(m_bytes.size() < 64 * 1024); // small: these tests are about shape, not volume
    }

    void intactFileReadsWhole() {
        SessionFile file(m_intact);
        QVERIFY(file.indexed());
        QVERIFY(file.verify().empty());
        QCOMPARE(file.runs().size(), std::size_t(1));
        QVERIFY(file.runs()[0].end.has_value());
        QCOMPARE(file.runs()[0].events, std::uint64_t(m_events.size()));
        QCOMPARE(describe(file.readRun(0).events), m_events);
        int keyframes = 0;
        for (const auto &c : m_chunks)
            keyframes += c.keyframe;
        QVERIFY(keyframes >= 4);
        QCOMPARE(file.stateAt(0, 10.0).events, std::uint64_t(m_events.size()));
        QVERIFY(file.problems().empty());
    }

    // A killed writer: the file ends inside a chunk. Everything before that
    // chunk reads; the warning names the chunk's offset.
    void truncatedMidChunkReadsUpToTheLastWholeChunk_data() {
        QTest::addColumn<int>("cutInto"); // bytes of the damaged chunk left
        QTest::newRow("mid stored bytes") << int(kChunkHeader + storedLength(m_bytes, damaged().offset) / 2);
        QTest::newRow("mid chunk header") << 10;
        QTest::newRow("one byte short") << int(kChunkHeader + storedLength(m_bytes, damaged().offset) - 1);
    }
    void truncatedMidChunkReadsUpToTheLastWholeChunk() {
        QFETCH(int, cutInto);
        const auto file = path("truncated.rec");
        save(file, m_bytes.left(qsizetype(damaged().offset) + cutInto));
        SessionFile f(file);
        QVERIFY(!f.indexed());
        QVERIFY2(findProblem(f.problems(), damaged().offset, "truncated"), listProblems(f.problems()).constData());
        QVERIFY2(findProblem(f.problems(), f.fileSize(), "no footer index"), listProblems(f.problems()).constData());
        QCOMPARE(f.runs().size(), std::size_t(1));
        QVERIFY(!f.runs()[0].end.has_value()); // the run's end was never written
        QCOMPARE(describe(f.readRun(0).events), eventsBefore(damaged()));
        QCOMPARE(f.chunks().size(), m_damaged);
        QVERIFY(!f.verify().empty());
        // Seeking in what is left works too.
        QCOMPARE(f.stateAt(0, 10.0).events, damaged().firstEvent);
    }

    void truncatedAtAChunkBoundaryLosesOnlyTheIndex() {
        const auto file = path("boundary.rec");
        save(file, m_bytes.left(qsizetype(damaged().offset)));
        SessionFile f(file);
        QVERIFY(!f.indexed());
        QCOMPARE(f.problems().size(), std::size_t(1));
        QVERIFY(findProblem(f.problems(), f.fileSize(), "no footer index"));
        QCOMPARE(describe(f.readRun(0).events), eventsBefore(damaged()));
    }

    // The writer died after the last data chunk but before the trailer (or
    // before the index): every event reads, from a scan.
    void missingTrailerFallsBackToAScan_data() {
        QTest::addColumn<qsizetype>("keep");
        QTest::newRow("no trailer") << m_bytes.size() - kTrailer;
        QTest::newRow("no index chunk") << qsizetype(m_indexOffset);
    }
    void missingTrailerFallsBackToAScan() {
        QFETCH(qsizetype, keep);
        const auto file = path("no-trailer.rec");
        save(file, m_bytes.left(keep));
        SessionFile f(file);
        QVERIFY(!f.indexed());
        QCOMPARE(f.problems().size(), std::size_t(1));
        QVERIFY(findProblem(f.problems(), std::uint64_t(keep), "no footer index"));
        QCOMPARE(f.chunks().size(), m_chunks.size());
        QCOMPARE(f.runs().size(), std::size_t(1));
        QVERIFY(f.runs()[0].end.has_value());
        QCOMPARE(describe(f.readRun(0).events), m_events);
        QCOMPARE(f.verify().size(), std::size_t(1)); // the missing index is the only problem
    }

    // One flipped byte in a middle chunk: its checksum catches it, the offset
    // is reported, every other chunk still reads.
    void flippedByteIsCaughtByTheChecksum() {
        const auto file = path("flipped.rec");
        save(file, flipped());
        SessionFile f(file);
        QVERIFY(f.indexed());           // the footer index is intact
        QVERIFY(f.problems().empty());  // opening reads only the index
        const auto problems = f.verify();
        QCOMPARE(problems.size(), std::size_t(1));
        QCOMPARE(problems[0].offset, damaged().offset);
        QVERIFY2(QString::fromStdString(problems[0].what).contains("checksum"), problems[0].what.c_str());
        const auto events = describe(f.readRun(0).events);
        QCOMPARE(events, eventsWithout({m_damaged}));
        // The chunk right after the damaged one is among them.
        const auto &next = m_chunks[m_damaged + 1];
        QVERIFY(next.events > 0);
        QVERIFY(std::find(events.begin(), events.end(), m_events[std::size_t(next.firstEvent)]) != events.end());
        QCOMPARE(f.problems().size(), std::size_t(1));
        // A seek across the damaged chunk still lands (and reports it once).
        QVERIFY(f.stateAt(0, 10.0).events > 0);
        QCOMPARE(f.problems().size(), std::size_t(1));
    }

    void flippedByteWithoutIndexIsFoundByTheScan() {
        const auto file = path("flipped-scan.rec");
        save(file, flipped().left(m_bytes.size() - kTrailer));
        SessionFile f(file);
        QVERIFY(!f.indexed());
        QVERIFY2(findProblem(f.problems(), damaged().offset, "checksum"), listProblems(f.problems()).constData());
        QCOMPARE(describe(f.readRun(0).events), eventsWithout({m_damaged}));
    }

    void brokenChunkMarkerResyncsOnTheNextChunk() {
        QByteArray bytes = m_bytes.left(m_bytes.size() - kTrailer); // scanned: framing matters
        bytes[qsizetype(damaged().offset)] = 'X';
        const auto file = path("marker.rec");
        save(file, bytes);
        SessionFile f(file);
        QVERIFY2(findProblem(f.problems(), damaged().offset, "corrupt chunk header"),
                 listProblems(f.problems()).constData());
        QCOMPARE(describe(f.readRun(0).events), eventsWithout({m_damaged}));
    }

    // Not a recording at all: a clear error naming the file, no crash.
    void garbageIsAClearError_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("text") << QByteArray("this is not a recording at all\n");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("short header") << QByteArray("SYNREC\r\n\x01", 9);
        QTest::newRow("random") << QByteArray(4096, '\xa7');
        QTest::newRow("metadata longer than the file") << QByteArray("SYNREC\r\n\x01\x00\x01\x00\xff\xff\x00\x00{}", 18);
    }
    void garbageIsAClearError() {
        QFETCH(QByteArray, bytes);
        const auto file = path("garbage.rec");
        save(file, bytes);
        try {
            SessionFile f(file);
            QFAIL("garbage was accepted");
        } catch (const std::runtime_error &e) {
            QVERIFY2(QString(e.what()).contains(QString::fromStdString(file)), e.what());
        }
    }

    void missingFileIsAClearError() {
        const auto file = path("missing.rec");
        try {
            SessionFile f(file);
            QFAIL("a missing file was accepted");
        } catch (const std::runtime_error &e) {
            QVERIFY2(QString(e.what()).contains(QString::fromStdString(file)), e.what());
        }
    }

    void futureVersionNamesTheVersionNeeded() {
        QByteArray bytes = m_bytes;
        bytes[10] = char(kFormatVersion + 1); // minimum readable version
        bytes[11] = 0;
        const auto file = path("future.rec");
        save(file, bytes);
        try {
            SessionFile f(file);
            QFAIL("a newer format was accepted");
        } catch (const std::runtime_error &e) {
            const QString what(e.what());
            QVERIFY2(what.contains(QString::fromStdString(file)), e.what());
            QVERIFY2(what.contains(QString("needs a reader of format %1").arg(kFormatVersion + 1)), e.what());
        }
    }

    // A newer writer that says this reader can still read it: it does.
    void newerButReadableVersionOpens() {
        QByteArray bytes = m_bytes;
        bytes[8] = char(kFormatVersion + 1); // format version; minimum readable stays
        const auto file = path("newer.rec");
        save(file, bytes);
        SessionFile f(file);
        QCOMPARE(f.formatVersion(), std::uint16_t(kFormatVersion + 1));
        QVERIFY(f.verify().empty());
        QCOMPARE(describe(f.readRun(0).events), m_events);
    }

    // A valid header, but the trailer points at something that is not the
    // index: the file is scanned instead, every event reads.
    void trailerPointingAtGarbageFallsBackToAScan_data() {
        QTest::addColumn<qulonglong>("target");
        QTest::addColumn<qulonglong>("reportedAt");
        QTest::addColumn<QString>("why");
        const auto size = qulonglong(m_bytes.size());
        QTest::newRow("inside a chunk") << qulonglong(damaged().offset + 7) << qulonglong(damaged().offset + 7)
                                        << QString("footer index unreadable (corrupt chunk header)");
        QTest::newRow("a data chunk") << qulonglong(m_chunks[0].offset) << qulonglong(m_chunks[0].offset)
                                      << "not an index";
        QTest::newRow("past the end") << size << size << "no footer index";
        // A trailer pointing into the header is not taken for a trailer at all.
        QTest::newRow("the metadata") << qulonglong(20) << size << "no footer index";
    }
    void trailerPointingAtGarbageFallsBackToAScan() {
        QFETCH(qulonglong, target);
        QFETCH(qulonglong, reportedAt);
        QFETCH(QString, why);
        QByteArray bytes = m_bytes;
        const std::uint64_t at = target;
        std::memcpy(bytes.data() + bytes.size() - kTrailer, &at, 8);
        const auto file = path("bad-trailer.rec");
        save(file, bytes);
        SessionFile f(file);
        QVERIFY(!f.indexed());
        QVERIFY2(findProblem(f.problems(), reportedAt, why.toUtf8().constData()), listProblems(f.problems()).constData());
        QCOMPARE(describe(f.readRun(0).events), m_events);
        QCOMPARE(f.runs().size(), std::size_t(1));
        QVERIFY(f.runs()[0].end.has_value());
    }

    void corruptIndexChunkFallsBackToAScan() {
        QByteArray bytes = m_bytes;
        const qsizetype at = qsizetype(m_indexOffset) + kChunkHeader + storedLength(bytes, m_indexOffset) / 2;
        bytes[at] = char(bytes[at] ^ 0x01);
        const auto file = path("bad-index.rec");
        save(file, bytes);
        SessionFile f(file);
        QVERIFY(!f.indexed());
        QVERIFY2(findProblem(f.problems(), m_indexOffset, "checksum"), listProblems(f.problems()).constData());
        QCOMPARE(describe(f.readRun(0).events), m_events);
    }

    // An intact index whose entries point at garbage: inside a chunk, past
    // the end of the file. Each is reported with its offset; the rest reads.
    void indexEntriesPointingAtGarbage() {
        const ChunkFile whole = readChunkFile(m_intact);
        QCOMPARE(whole.chunks.size(), m_chunks.size() + 1); // the data chunks and the index
        auto records = parseRecords(whole.chunks.back().raw);
        QCOMPARE(records.size(), std::size_t(1));
        QVERIFY(records[0].has_index());
        pb::Index &index = *records[0].mutable_index();
        QCOMPARE(std::size_t(index.chunks_size()), m_chunks.size());

        const auto file = path("bad-entries.rec");
        {
            ChunkWriter writer(file, whole.metadata);
            for (std::size_t i = 0; i < m_chunks.size(); ++i)
                QCOMPARE(writer.write(whole.chunks[i].raw, whole.chunks[i].firstTime, whole.chunks[i].lastTime),
                         m_chunks[i].offset); // same bytes, same places
            index.mutable_chunks(int(m_damaged))->set_offset(damaged().offset + 3);
            index.mutable_chunks(index.chunks_size() - 1)->set_offset(std::uint64_t(1) << 40);
            std::string raw;
            appendRecord(raw, records[0]);
            writer.finish(raw, whole.chunks.back().firstTime, whole.chunks.back().lastTime);
        }
        SessionFile f(file);
        QVERIFY(f.indexed());
        const auto problems = f.verify();
        QCOMPARE(problems.size(), std::size_t(2));
        QVERIFY2(findProblem(problems, damaged().offset + 3, "corrupt chunk header"), listProblems(problems).constData());
        QVERIFY2(findProblem(problems, std::uint64_t(1) << 40, "no chunk here"), listProblems(problems).constData());
        QCOMPARE(describe(f.readRun(0).events), eventsWithout({m_damaged, m_chunks.size() - 1}));
    }

    // The same files through synaptic-node: exit codes and messages.
    void cliExitCodes() {
        if (qEnvironmentVariable("SYNAPTIC_NODE").isEmpty())
            QSKIP("SYNAPTIC_NODE is not set (run through ctest)");
        const auto intact = QString::fromStdString(m_intact);
        const auto flippedFile = path("cli-flipped.rec");
        save(flippedFile, flipped());
        const auto truncatedFile = path("cli-truncated.rec");
        save(truncatedFile, truncated());
        const auto garbage = path("cli-garbage.rec");
        save(garbage, "GIF89a, not a recording");
        const auto future = path("cli-future.rec");
        QByteArray bytes = m_bytes;
        bytes[10] = char(kFormatVersion + 1);
        save(future, bytes);

        auto r = runNode({"info", intact});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("integrity   ok"), qPrintable(r.out));

        r = runNode({"info", QString::fromStdString(flippedFile)});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(QString("byte %1").arg(damaged().offset)), qPrintable(r.err));
        QVERIFY2(r.err.contains("checksum"), qPrintable(r.err));
        QVERIFY2(r.out.contains("DAMAGED"), qPrintable(r.out));

        r = runNode({"info", QString::fromStdString(truncatedFile)});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(QString("byte %1").arg(damaged().offset)), qPrintable(r.err));
        QVERIFY2(r.err.contains("truncated"), qPrintable(r.err));
        QVERIFY2(r.out.contains("INCOMPLETE"), qPrintable(r.out));

        r = runNode({"info", QString::fromStdString(garbage)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QString::fromStdString(garbage)), qPrintable(r.err));
        QVERIFY2(r.err.contains("not a Synaptic recording"), qPrintable(r.err));

        r = runNode({"info", QString::fromStdString(future)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QString("needs a reader of format %1").arg(kFormatVersion + 1)), qPrintable(r.err));

        const auto missing = QString::fromStdString(path("cli-missing.rec"));
        r = runNode({"info", missing});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(missing), qPrintable(r.err));

        r = runNode({"info"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("needs a recording file"), qPrintable(r.err));

        r = runNode({"export", intact});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("nothing to write"), qPrintable(r.err));

        r = runNode({"export", QString::fromStdString(garbage), "--csv", m_dir.filePath("csv-garbage")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QString::fromStdString(garbage)), qPrintable(r.err));
    }

    void cliExportWritesCsv() {
        if (qEnvironmentVariable("SYNAPTIC_NODE").isEmpty())
            QSKIP("SYNAPTIC_NODE is not set (run through ctest)");
        auto countRows = [](const QString &file) {
            QFile f(file);
            if (!f.open(QIODevice::ReadOnly))
                return -1;
            return int(f.readAll().count('\n')) - 1; // less the header
        };
        const QString dir = m_dir.filePath("csv");
        auto r = runNode({"export", QString::fromStdString(m_intact), "--csv", dir});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const int each = int(m_events.size() / 3); // one metric, link and lease event per step
        QCOMPARE(countRows(dir + "/metrics.csv"), each);
        QCOMPARE(countRows(dir + "/link_bytes.csv"), each);
        QCOMPARE(countRows(dir + "/leases.csv"), each);
        QCOMPARE(countRows(dir + "/drift.csv"), 0);

        // A damaged file exports what it can and says so: exit 3, the offset named.
        const auto flippedFile = path("cli-export-flipped.rec");
        save(flippedFile, flipped());
        const QString damagedDir = m_dir.filePath("csv-damaged");
        r = runNode({"export", QString::fromStdString(flippedFile), "--csv", damagedDir});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(QString("byte %1").arg(damaged().offset)), qPrintable(r.err));
        const int rows = countRows(damagedDir + "/metrics.csv");
        QVERIFY2(rows > 0 && rows < each, QByteArray::number(rows).constData());
    }
};

QTEST_APPLESS_MAIN(TestSessionBadFiles)
#include "tst_session_bad_files.moc"
