// Length-delimited protobuf events: a round trip keeps every field, and a
// truncated stream is an error, not garbage.
#include "core/session/event_codec.h"

#include <QTest>

#include <sstream>

using namespace synaptic;

class TestEventCodec : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip() {
        std::stringstream buf;
        std::vector<session::TimedProgress> events;
        for (int i = 0; i < 50; ++i) {
            session::TimedProgress e;
            e.time = i * 0.25;
            e.progress.kind = i % 10 == 9 ? engine::TrainProgress::Kind::Evaluation : engine::TrainProgress::Kind::Step;
            e.progress.epoch = 1 + i / 20;
            e.progress.epochs = 3;
            e.progress.step = i * 20;
            e.progress.totalSteps = 1000;
            e.progress.samplesSeen = i * 1280;
            e.progress.loss = 2.3 / (1 + i);
            e.progress.testAccuracy = i % 10 == 9 ? 0.5 + i * 0.001 : -1;
            events.push_back(e);
            QVERIFY(session::writeDelimited(buf, e));
        }
        session::EventReader reader(buf);
        for (const auto &expected : events) {
            const auto got = reader.next();
            QVERIFY(got.has_value());
            QCOMPARE(got->time, expected.time);
            QCOMPARE(got->progress.kind, expected.progress.kind);
            QCOMPARE(got->progress.step, expected.progress.step);
            QCOMPARE(got->progress.samplesSeen, expected.progress.samplesSeen);
            QCOMPARE(got->progress.loss, expected.progress.loss);
            QCOMPARE(got->progress.testAccuracy, expected.progress.testAccuracy);
        }
        QVERIFY(!reader.next().has_value());
    }

    void truncatedStreamThrows() {
        std::stringstream buf;
        session::TimedProgress e;
        e.progress.loss = 1.5;
        e.progress.step = 123456;
        QVERIFY(session::writeDelimited(buf, e));
        QVERIFY(session::writeDelimited(buf, e));
        std::string bytes = buf.str();
        bytes.resize(bytes.size() - 3);
        std::stringstream cut(bytes);
        session::EventReader reader(cut);
        QVERIFY(reader.next().has_value());
        try {
            reader.next();
            QFAIL("expected an error for the truncated event");
        } catch (const std::runtime_error &err) {
            QVERIFY2(QString(err.what()).contains("session event 1"), err.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestEventCodec)
#include "tst_event_codec.moc"
