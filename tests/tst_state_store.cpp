// Durable node state (issue 15 §1): the state codec refuses every torn,
// corrupted or foreign byte string whole, naming the source and offset;
// the file store replaces state atomically, keeps the generation before,
// and reports any read failure other than "no file" instead of falling back.
#include "core/engine/durable/state_codec.h"
#include "core/engine/durable/state_store.h"

#include <ATen/ATen.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace synaptic::engine;

namespace {

std::string sample() {
    StateWriter w;
    w.u64(42);
    w.i64(-7);
    w.f64(0.25);
    w.flag(true);
    w.tensor(at::arange(5, at::kFloat));
    w.tensor(at::Tensor());
    w.ids({1, 2, 1ull << 41});
    return w.finish();
}

QString refusal(const std::string &bytes) {
    try {
        StateReader r(bytes, "node 3");
        r.u64();
        r.i64();
        r.f64();
        r.flag();
        r.tensor("cpu");
        r.tensor("cpu");
        r.ids();
        r.expectEnd();
    } catch (const StateFileError &e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestStateStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripsEveryField() {
        StateReader r(sample(), "node 3");
        QCOMPARE(r.u64(), std::uint64_t(42));
        QCOMPARE(r.i64(), std::int64_t(-7));
        QCOMPARE(r.f64(), 0.25);
        QVERIFY(r.flag());
        QVERIFY(at::equal(r.tensor("cpu"), at::arange(5, at::kFloat)));
        QVERIFY(!r.tensor("cpu").defined());
        QCOMPARE(r.ids(), (std::vector<std::uint64_t>{1, 2, 1ull << 41}));
        r.expectEnd();
    }

    // Cut at every length, or one byte flipped anywhere: refused, naming
    // the source and a byte offset.
    void refusesEveryTornOrCorruptedCopy() {
        const std::string good = sample();
        QVERIFY(refusal(good).isEmpty());
        for (std::size_t n = 0; n < good.size(); ++n) {
            const QString why = refusal(good.substr(0, n));
            QVERIFY2(why.startsWith("node 3: at byte "), qPrintable(QString::number(n) + ": " + why));
        }
        for (std::size_t i = 0; i < good.size(); ++i) {
            std::string bad = good;
            bad[i] = char(bad[i] ^ 0x5a);
            const QString why = refusal(bad);
            QVERIFY2(!why.isEmpty() && why.startsWith("node 3: at byte "), qPrintable(QString::number(i) + ": " + why));
        }
        QVERIFY(refusal("not a state file at all").contains("no SYNSTATE magic"));
    }

    // A reader of another layout: bytes left over are an error, and so is
    // a field the file does not have.
    void refusesALayoutMismatch() {
        StateWriter w;
        w.u64(1);
        w.u64(2);
        StateReader extra(w.finish(), "node 1");
        extra.u64();
        QVERIFY_THROWS_EXCEPTION(StateFileError, extra.expectEnd());
        StateWriter v;
        v.u64(1);
        StateReader shortOne(v.finish(), "node 1");
        shortOne.u64();
        QVERIFY_THROWS_EXCEPTION(StateFileError, shortOne.u64());
    }

    void memoryStoreKeepsTheGenerationBefore() {
        MemoryStateStore s;
        QVERIFY(!s.read(2));
        s.write(2, "a");
        QVERIFY(!s.readPrevious(2));
        s.write(2, "b");
        QCOMPARE(*s.read(2), std::string("b"));
        QCOMPARE(*s.readPrevious(2), std::string("a"));
        QCOMPARE(s.writes(), std::uint64_t(2));
    }

    void fileStoreReplacesAtomicallyAndKeepsThePrevious() {
        QTemporaryDir dir;
        FileStateStore s(dir.path().toStdString());
        QVERIFY(!s.read(5));
        s.write(5, "first");
        s.write(5, "second");
        s.write(5, "third");
        QCOMPARE(*s.read(5), std::string("third"));
        QCOMPARE(*s.readPrevious(5), std::string("second"));
        const QDir node(dir.filePath("node-5"));
        QCOMPARE(node.entryList(QDir::Files, QDir::Name), (QStringList{"state.bin", "state.bin.prev"}));
    }

    // A hub's state is a part of its edge's node of its own (its own file
    // and generations): neither write replaces the other.
    void aNodesHubPartIsAStateOfItsOwn() {
        MemoryStateStore memory;
        QTemporaryDir dir;
        FileStateStore files(dir.path().toStdString());
        for (StateStore *s : {static_cast<StateStore *>(&memory), static_cast<StateStore *>(&files)}) {
            s->write(3, "owner 1");
            s->write(3, "hub 1", StatePart::Hub);
            s->write(3, "hub 2", StatePart::Hub);
            QCOMPARE(*s->read(3), std::string("owner 1"));
            QVERIFY(!s->readPrevious(3));
            QCOMPARE(*s->read(3, StatePart::Hub), std::string("hub 2"));
            QCOMPARE(*s->readPrevious(3, StatePart::Hub), std::string("hub 1"));
            QVERIFY(!s->read(4, StatePart::Hub));
            QVERIFY(s->describe(3, StatePart::Hub) != s->describe(3));
        }
        QCOMPARE(QDir(dir.filePath("node-3")).entryList(QDir::Files, QDir::Name),
                 (QStringList{"hub-state.bin", "hub-state.bin.prev", "state.bin"}));
        QVERIFY(QString::fromStdString(files.describe(3, StatePart::Hub)).endsWith("node-3/hub-state.bin"));
    }

    // Unreadable is not absent: a directory where the file should be is an
    // error naming it, never a silent fall back to an older generation.
    void aReadFailureIsAnErrorNamingTheFile() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("node-1/state.bin"));
        FileStateStore s(dir.path().toStdString());
        try {
            s.read(1);
            QFAIL("a directory was read as state");
        } catch (const StateFileError &e) {
            QVERIFY2(QString(e.what()).contains("node-1/state.bin"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(StateFileError, s.write(1, "x")); // cannot rename over a directory
    }
};

QTEST_APPLESS_MAIN(TestStateStore)
#include "tst_state_store.moc"
