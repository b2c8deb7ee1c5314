// The codecs of issue 14 on real tensors (a trained model's gradients would
// do, but their error bounds hold for any input, so the inputs here are
// seeded random draws with outliers): round trips, error bounds, wire
// sizes, error feedback's bookkeeping and value deltas' exactness.
#include "core/engine/codec/codec.h"
#include "core/engine/codec/delta_publisher.h"
#include "core/engine/codec/error_feedback.h"
#include "core/engine/codec/zstd_frame.h"

#include <ATen/ATen.h>

#include <QTest>

#include <cstring>
#include <limits>
#include <stdexcept>

using namespace synaptic::engine;

namespace {

at::Tensor draws(std::int64_t n, std::uint64_t seed) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    auto t = at::randn({n}, gen, at::kFloat).mul_(1e-3);
    // A few outliers, as real gradients have.
    for (std::int64_t i = 7; i < n; i += 997)
        t[i] = 0.5f * float((i % 3) - 1);
    return t;
}

} // namespace

class TestCodec : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namesParseAndRoundTrip() {
        for (const char *name : {"fp32", "fp16", "int8", "topk:0.01", "topk:0.25", "fp16+zstd", "int8+zstd", "topk:0.05+zstd"})
            QCOMPARE(QString::fromStdString(codecName(parseCodec(name))), QString(name));
        QCOMPARE(parseCodec("topk").topkFraction, 0.01);
        QVERIFY(parseCodec("int8+zstd").zstd);
        QCOMPARE(parseCodec("int8+zstd").codec, Codec::Int8);
        QVERIFY(!parseCodec("int8").zstd);
        for (const char *bad : {"fp8", "topk:", "topk:0", "topk:1.5", "topk:abc", "topk:0.1x", "", "fp32+zstd",
                                "int8+zstd+zstd", "+zstd", "zstd", "int8+gzip", "int8+"}) {
            try {
                parseCodec(bad);
                QFAIL(bad);
            } catch (const std::invalid_argument &e) {
                QVERIFY2(QString(e.what()).contains("codec"), e.what());
            }
        }
    }

    void fp32IsExact() {
        const auto x = draws(10'000, 1);
        const Coded c = encode(x, {Codec::Fp32});
        QVERIFY(at::equal(decode(c), x));
        QCOMPARE(payloadBytes(c), std::uint64_t(4 * 10'000));
    }

    void fp16HalvesBytesWithinHalfPrecision() {
        const auto x = draws(10'000, 2);
        const Coded c = encode(x, {Codec::Fp16});
        QCOMPARE(payloadBytes(c), std::uint64_t(2 * 10'000));
        const auto err = (decode(c) - x).abs();
        // Relative error of a normal fp16 number is at most 2^-11; tiny values
        // fall into fp16's subnormals, whose absolute step is 2^-24.
        QVERIFY((err <= x.abs() * std::ldexp(1.0, -11) + std::ldexp(1.0, -24)).all().item<bool>());
    }

    // Batch-norm statistics beside a class codec: fp32 beside fp32, fp16
    // (never int8 or top-k, never packed) beside any lossy codec, and fp32
    // again when fp16 cannot hold them.
    void statisticsTravelAtFp16BesideLossyCodecs() {
        const auto stats = at::arange(264, at::kFloat).mul_(0.37f).add_(1e-3f);
        QCOMPARE(statisticsCodec(stats, parseCodec("fp32")), CodecSpec{});
        for (const char *lossy : {"fp16", "int8", "topk:0.01", "int8+zstd", "fp16+zstd"}) {
            const CodecSpec s = statisticsCodec(stats, parseCodec(lossy));
            QVERIFY2(s.codec == Codec::Fp16 && !s.zstd, lossy);
        }
        const CodecSpec int8 = parseCodec("int8");
        auto big = stats.clone();
        big[5] = 70000.0f; // beyond fp16's 65504
        QCOMPARE(statisticsCodec(big, int8), CodecSpec{});
        big[5] = -65504.0f; // fp16's largest magnitude still fits
        QCOMPARE(statisticsCodec(big, int8).codec, Codec::Fp16);
        auto bad = stats.clone();
        bad[7] = std::numeric_limits<float>::quiet_NaN();
        QCOMPARE(statisticsCodec(bad, int8), CodecSpec{});
        bad[7] = std::numeric_limits<float>::infinity();
        QCOMPARE(statisticsCodec(bad, int8), CodecSpec{});
        QCOMPARE(statisticsCodec(at::zeros({0}), int8), CodecSpec{}); // a model without batch-norm
        QCOMPARE(statisticsCodec(at::Tensor(), int8), CodecSpec{});
    }

    void int8ErrorIsHalfAStepOfItsChunk() {
        const std::int64_t n = 10 * kInt8Chunk + 17; // a partial last chunk
        const auto x = draws(n, 3);
        const Coded c = encode(x, {Codec::Int8});
        QCOMPARE(c.values.scalar_type(), at::kChar);
        QCOMPARE(c.scales.numel(), std::int64_t(11));
        QCOMPARE(payloadBytes(c), std::uint64_t(n + 4 * 11));
        const auto y = decode(c);
        QCOMPARE(y.numel(), n);
        for (std::int64_t k = 0; k < 11; ++k) {
            const auto b = k * kInt8Chunk, e = std::min(n, b + kInt8Chunk);
            const double step = x.slice(0, b, e).abs().max().item<double>() / 127.0;
            const double worst = (y.slice(0, b, e) - x.slice(0, b, e)).abs().max().item<double>();
            QVERIFY2(worst <= step / 2 * (1 + 1e-5) + 1e-12, qPrintable(QString("chunk %1: %2 > %3").arg(k).arg(worst).arg(step / 2)));
        }
        // The largest finite floats stay finite (127 times their scale
        // would round to inf) and within half a step.
        const float big = std::numeric_limits<float>::max();
        const auto edge = at::tensor({big, -big, big / 3, 1.0f});
        const auto back = decode(encode(edge, {Codec::Int8}));
        QVERIFY2(back.isfinite().all().item<bool>(), "int8 decoded FLT_MAX to inf");
        QVERIFY(((back.to(at::kDouble) - edge.to(at::kDouble)).abs() <= double(big) / 127.0 / 2 * (1 + 1e-5)).all().item<bool>());
        QVERIFY(at::equal(decode(encode(back, {Codec::Int8})), back));
        // An all-zero tensor has zero scales and decodes to zeros.
        QVERIFY(at::equal(decode(encode(at::zeros({300}), {Codec::Int8})), at::zeros({300})));
    }

    // A ring's all-gather re-encodes what it received before passing it on
    // (RingReduce), so every member ends with the same bits only if coding
    // a decoded tensor again gives back the same wire: same int8 values and
    // scales, same fp16 halves, same top-k positions' values. For int8 that
    // rests on the scale s = fl(m/127) of a chunk's maximum m surviving
    // fl(fl(127·s)/127) == s under IEEE division: true for every float m
    // from 2.24e-41 up (checked exhaustively in C, 2026-12-06; m = FLT_MAX
    // needs encode's one-ulp step), not for every float s, and not when the
    // scale comes from a rounded 1/127 (about 4 % of maxima fail then).
    // The chunks here span 10^-30..10^30.
    void reencodingDecodedValuesChangesNothing() {
        const std::int64_t chunks = 20'000;
        auto gen = at::make_generator<at::CPUGeneratorImpl>(11);
        const auto magnitudes = at::pow(10.0, at::rand({chunks, 1}, gen, at::kDouble).mul_(60).sub_(30)).to(at::kFloat);
        const auto x = at::randn({chunks, kInt8Chunk}, gen, at::kFloat).mul_(magnitudes).view({-1});
        for (const char *name : {"int8", "fp16", "topk:0.05", "int8+zstd"}) {
            const CodecSpec spec = parseCodec(name);
            const Coded first = encode(x, spec);
            const auto once = decode(first);
            const Coded second = encode(once, spec);
            QVERIFY2(at::equal(second.values, first.values), name);
            if (first.scales.defined()) {
                const auto differ = second.scales.ne(first.scales);
                QVERIFY2(!differ.any().item<bool>(),
                         qPrintable(QString("%1: %2 of %3 chunk scales change when coded again")
                                        .arg(name)
                                        .arg(differ.sum().item<std::int64_t>())
                                        .arg(chunks)));
            }
            QVERIFY2(at::equal(decode(second), once), name);
        }
    }

    // The zstd stage (issue 14) is lossless and charged as its frame: the
    // receiver decodes exactly what plain int8 would, and the bytes counted
    // are the frame's, smaller for bell-shaped deltas (a max-scaled chunk
    // uses about seven of int8's eight bits) and larger for noise.
    void zstdStageIsLosslessAndChargedAsItsFrame() {
        const std::int64_t n = 40 * kInt8Chunk + 3;
        const auto x = draws(n, 5);
        const Coded plain = encode(x, parseCodec("int8"));
        const Coded packed = encode(x, parseCodec("int8+zstd"));
        QVERIFY(!plain.packed);
        QVERIFY(packed.packed);
        QVERIFY(at::equal(packed.values, plain.values));
        QVERIFY(at::equal(decode(packed), decode(plain)));
        // The frame holds the values' bytes, no more, no less.
        std::string raw(std::size_t(n), '\0');
        zstdUnpack(*packed.packed, raw.data(), std::uint64_t(n));
        QVERIFY(std::memcmp(raw.data(), plain.values.data_ptr(), std::size_t(n)) == 0);
        QCOMPARE(payloadBytes(packed), std::uint64_t(packed.packed->size()) + 4 * 41);
        QVERIFY2(double(payloadBytes(packed)) < 0.95 * double(payloadBytes(plain)),
                 qPrintable(QString("%1 vs %2").arg(payloadBytes(packed)).arg(payloadBytes(plain))));
        // fp16 and top-k values go through the same stage.
        for (const char *name : {"fp16+zstd", "topk:0.1+zstd"}) {
            const Coded c = encode(x, parseCodec(name));
            QVERIFY2(c.packed, name);
            const auto bytes = std::size_t(c.values.numel() * c.values.element_size());
            std::string back(bytes, '\0');
            zstdUnpack(*c.packed, back.data(), bytes);
            QVERIFY2(std::memcmp(back.data(), c.values.data_ptr(), bytes) == 0, name);
        }
        // Uniform int8 noise does not compress: the frame is what is counted.
        auto gen = at::make_generator<at::CPUGeneratorImpl>(9);
        const auto noise = at::rand({n}, gen, at::kFloat).mul_(2).sub_(1);
        const Coded loud = encode(noise, parseCodec("int8+zstd"));
        QVERIFY(payloadBytes(loud) >= std::uint64_t(n));
        QCOMPARE(payloadBytes(loud), std::uint64_t(loud.packed->size()) + 4 * 41);
    }

    void topkKeepsTheLargestMagnitudes() {
        const auto x = draws(10'000, 4);
        const Coded c = encode(x, {Codec::TopK, 0.01});
        QCOMPARE(c.values.numel(), std::int64_t(100));
        QCOMPARE(payloadBytes(c), std::uint64_t(100 * (4 + 4)));
        const auto y = decode(c);
        QCOMPARE(int(y.ne(0).sum().item<std::int64_t>()), 100);
        // Every kept magnitude is at least every dropped one.
        const auto kept = y.ne(0);
        const double smallestKept = x.abs().masked_select(kept).min().item<double>();
        const double largestDropped = x.abs().masked_select(kept.logical_not()).max().item<double>();
        QVERIFY(smallestKept >= largestDropped);
        QVERIFY(at::equal(y.masked_select(kept), x.masked_select(kept)));
        // Positions ascend (the wire checks it).
        QVERIFY((c.indices.slice(0, 1) > c.indices.slice(0, 0, 99)).all().item<bool>());
    }

    // Deep Gradient Compression's bookkeeping: after any number of sends,
    // what arrived plus the residual is what was meant to be sent.
    void errorFeedbackCarriesTheResidual_data() {
        QTest::addColumn<QString>("codec");
        for (const char *c : {"int8", "topk:0.01", "fp16"})
            QTest::newRow(c) << c;
    }
    void errorFeedbackCarriesTheResidual() {
        QFETCH(QString, codec);
        const CodecSpec spec = parseCodec(codec.toStdString());
        ErrorFeedback feedback;
        at::Tensor truth = at::zeros({5000}, at::kDouble), arrived = at::zeros({5000}, at::kDouble);
        for (int i = 0; i < 50; ++i) {
            const auto update = draws(5000, 100 + std::uint64_t(i));
            truth += update.to(at::kDouble);
            arrived += decode(feedback.compress(update, spec)).to(at::kDouble);
        }
        QVERIFY(feedback.residual().defined());
        const auto gap = (arrived + feedback.residual().to(at::kDouble) - truth).abs().max().item<double>();
        QVERIFY2(gap < 1e-5, qPrintable(QString::number(gap)));
        // Without the residual the sum is off by far more: the check can fail.
        const auto lost = (arrived - truth).abs().max().item<double>();
        QVERIFY2(lost > 100 * gap, qPrintable(QString("%1 vs %2").arg(lost).arg(gap)));
    }

    void losslessCodecOwesNothing() {
        ErrorFeedback feedback;
        const auto x = draws(100, 9);
        QVERIFY(at::equal(decode(feedback.compress(x, {Codec::Fp32})), x));
        QVERIFY(!feedback.residual().defined());
    }

    // fp32 value deltas: the receiver's copy is bit for bit the sender's
    // values after every version, however the values move.
    // The sender's values are snapped to the published record (one rounding
    // of an addition away from the truth): the check that the receiver's
    // copy equals them bit for bit fails without the snap, and the check
    // against an untouched truth fails if the deltas were wrong.
    void fp32ValueDeltasReconstructExactly() {
        at::Tensor truth = draws(4096, 20).to(at::kDouble);
        DeltaPublisher publisher;
        at::Tensor values = truth.to(at::kFloat);
        publisher.reset(values, 0);
        at::Tensor copy = values.clone();
        at::Tensor largest = truth.abs(); // per element, the largest magnitude it had so far
        for (std::uint64_t v = 1; v <= 200; ++v) {
            const auto step = draws(4096, 200 + v).mul_(v % 7 == 0 ? 1000.0 : 1.0); // large jumps, sign changes
            values.add_(step);
            truth += step.to(at::kDouble);
            largest = at::maximum(largest, truth.abs());
            const Coded delta = publisher.publish(values, v, {Codec::Fp32});
            applyDelta(copy, delta);
            QVERIFY2(at::equal(copy, values), qPrintable(QString("version %1").arg(v)));
            // Within the fp32 roundings of v additions of the truth (each at
            // most half an ulp of the largest magnitude the element had).
            const auto gap = (copy.to(at::kDouble) - truth).abs();
            const auto bound = largest.mul(std::ldexp(1.0, -23) * double(v)).clamp_min(1e-30);
            QVERIFY2((gap <= bound).all().item<bool>(),
                     qPrintable(QString("version %1: %2").arg(v).arg(gap.max().item<double>())));
        }
        QCOMPARE(publisher.version(), std::uint64_t(200));
    }

    // Lossy value deltas: receivers hold exactly the publisher's record, and
    // it tracks the true values without drifting away (the error of one
    // delta is sent with the next).
    void lossyValueDeltasStayWithinOneStep() {
        auto values = draws(4096, 30);
        DeltaPublisher publisher;
        publisher.reset(values, 0);
        at::Tensor copy = values.clone();
        double worst = 0;
        for (std::uint64_t v = 1; v <= 200; ++v) {
            const auto step = draws(4096, 300 + v);
            values.add_(step);
            applyDelta(copy, publisher.publish(values, v, {Codec::Int8}));
            QVERIFY(at::equal(copy, publisher.published()));
            worst = std::max(worst, (copy - values).abs().max().item<double>());
        }
        // Each delta's error is half an int8 step of what it carries (the
        // step plus the last error), never the sum over 200 versions.
        QVERIFY2(worst < 0.5 * 1.0 / 127.0 * 2, qPrintable(QString::number(worst)));
        const Coded whole = encode(values, {Codec::Int8});
        const double wholeError = (decode(whole) - values).abs().max().item<double>();
        QVERIFY2(worst < wholeError, qPrintable(QString("%1 vs whole values' %2").arg(worst).arg(wholeError)));
    }
};

QTEST_GUILESS_MAIN(TestCodec)
#include "tst_codec.moc"
