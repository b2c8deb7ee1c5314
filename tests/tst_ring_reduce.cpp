// The ring all-reduce that allreduce, hier_allreduce and hier_diloco run
// (core/engine/sim/strategies/ring_reduce.h), driven by hand: its members
// pass their chunks through the wire's decoding (decodePayloads, what every
// receiver's transport does) until each holds the sum. Under every codec all
// members must end with the same bits, batch-norm statistics included (they
// travel at fp16 beside a lossy codec, at fp32 where fp16 cannot hold them),
// since the replicas that step with the sum must stay identical.
#include "test_threads.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/strategies/ring_reduce.h"

#include <ATen/ATen.h>

#include <QtTest>

#include <deque>
#include <map>

using namespace synaptic::engine;

namespace {

constexpr std::int64_t kLength = 1000;
constexpr std::int64_t kCoded = 500; // the rest are statistics, spanning two chunks

struct RingRun {
    std::vector<at::Tensor> inputs;
    std::vector<at::Tensor> results;
    std::map<Codec, int> statisticsCodecs; // how statistics slices travelled, per hop
};

// Runs one step of a ring of `size` members under `codec`. `big`: one
// statistic beyond fp16's range, so its chunk's statistics must travel at fp32.
RingRun runRing(const CodecSpec &codec, bool big, int size) {
    std::vector<int> members;
    for (int i = 0; i < size; ++i)
        members.push_back(4 + 3 * i);
    std::map<int, RingReduce> rings;
    for (int node : members)
        rings.emplace(node, RingReduce(0, members, node));
    RingRun run;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(11);
    std::deque<Message> wire;
    auto post = [&](int from, Outbox &out) {
        for (auto &m : out.messages) {
            m.from = from;
            if (m.buffers.defined())
                ++run.statisticsCodecs[m.buffersCoding.codec];
            decodePayloads(m);
            wire.push_back(std::move(m));
        }
        out.messages.clear();
    };
    for (int node : members) {
        auto v = at::randn({kLength}, gen, at::kFloat).mul_(1e-2);
        // Running variances and means: positive, of order one.
        v.slice(0, kCoded).uniform_(0.5, 3.0, gen);
        if (big && node == members[1])
            v[kLength - 10] = 70000.0f;
        run.inputs.push_back(v.clone());
        Outbox out;
        if (rings.at(node).start(3, v, kCoded, codec, out))
            qFatal("a ring of several cannot finish at once");
        post(node, out);
    }
    int finished = 0;
    while (!wire.empty()) {
        Message m = std::move(wire.front());
        wire.pop_front();
        const int to = m.to;
        Outbox out;
        if (rings.at(to).onChunk(std::move(m), out))
            ++finished;
        post(to, out);
    }
    if (finished != int(members.size()))
        qFatal("only %d of %d members finished", finished, size);
    for (int node : members)
        run.results.push_back(rings.at(node).result().clone());
    return run;
}

} // namespace

class TestRingReduce : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setTestThreads(); }

    void membersEndWithTheSameBits_data() {
        QTest::addColumn<QString>("codec");
        QTest::addColumn<bool>("big");
        QTest::addColumn<int>("size");
        // Three members, and eight as in a default region (seven hops of the all-gather).
        for (int size : {3, 8})
            for (const char *c : {"fp32", "fp16", "int8", "topk:0.1", "int8+zstd"}) {
                const std::string name = std::string(c) + ", " + std::to_string(size) + " members";
                QTest::newRow(name.c_str()) << c << false << size;
                QTest::newRow((name + ", a statistic beyond fp16").c_str()) << c << true << size;
            }
    }
    void membersEndWithTheSameBits() {
        QFETCH(QString, codec);
        QFETCH(bool, big);
        QFETCH(int, size);
        const CodecSpec spec = parseCodec(codec.toStdString());
        const RingRun run = runRing(spec, big, size);
        for (std::size_t i = 1; i < run.results.size(); ++i)
            QVERIFY2(at::equal(run.results[i], run.results[0]),
                     qPrintable(QString("member %1 differs by up to %2").arg(i).arg(
                         (run.results[i] - run.results[0]).abs().max().item<double>())));
        // The statistics' sum is right to fp16's precision (a rounding per
        // hop), and to fp32's at fp32.
        auto truth = at::zeros({kLength});
        for (const auto &in : run.inputs)
            truth.add_(in);
        const auto stats = run.results[0].slice(0, kCoded);
        const auto want = truth.slice(0, kCoded);
        const double tolerance = spec.codec == Codec::Fp32 ? 1e-6 : (size + 1) * std::ldexp(1.0, -11);
        QVERIFY2(((stats - want).abs() <= want.abs() * tolerance).all().item<bool>(),
                 qPrintable(QString::number(((stats - want).abs() / want.abs()).max().item<double>())));
        // How they travelled: fp32 beside fp32; fp16 beside a lossy codec,
        // except the hops of the chunk holding the statistic fp16 cannot.
        const int fp32Hops = run.statisticsCodecs.count(Codec::Fp32) ? run.statisticsCodecs.at(Codec::Fp32) : 0;
        const int fp16Hops = run.statisticsCodecs.count(Codec::Fp16) ? run.statisticsCodecs.at(Codec::Fp16) : 0;
        if (spec.codec == Codec::Fp32) {
            QCOMPARE(fp16Hops, 0);
        } else {
            QVERIFY(fp16Hops > 0);
            QCOMPARE(fp32Hops > 0, big);
        }
    }
};

QTEST_GUILESS_MAIN(TestRingReduce)
#include "tst_ring_reduce.moc"
