// The synaptic.v1 wire format (issue 13 §2): every message kind encodes and
// decodes field for field, and what the simulator charges a link for a
// message is exactly its encoded size plus gRPC's 5-byte framing, checked on
// hand-made messages of every kind and on every message of real runs.
#include "test_threads.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/sim/wire_size.h"
#include "core/rpc/wire/message_codec.h"
#include "core/rpc/wire/tensor_codec.h"
#include "core/engine/codec/zstd_frame.h"

#include <QtTest>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <cstring>
#include <map>
#include <set>

using namespace synaptic::engine;
namespace rpc = synaptic::rpc;

namespace {

at::Tensor floats(std::int64_t n, float start = 0.5f) { return at::arange(n, at::kFloat).mul_(0.25f).add_(start); }

ShardItem item(int shard, std::int64_t n) {
    ShardItem s;
    s.shard = shard;
    s.version = 1000 + std::uint64_t(shard);
    s.data = floats(n);
    return s;
}

// One message of every kind, shaped as the strategies make them, plus the
// awkward values: negative origin and chunk, -0.0 and huge stamps, 64-bit ids.
std::vector<Message> everyKind() {
    std::vector<Message> out;
    auto base = [](MessageKind k) {
        Message m;
        m.kind = k;
        m.from = 3;
        m.to = 1;
        m.sentAt = 12.375;
        return m;
    };
    Message hb = base(MessageKind::Heartbeat);
    hb.to = 0;
    hb.lease = {7, 19.5};
    hb.join = true;
    out.push_back(hb);
    Message grant = base(MessageKind::LeaseGrant);
    grant.from = 0;
    grant.lease = {8, 31.25};
    grant.owners = {0, 1, 2, 2, 1, 0, 17, 300};
    out.push_back(grant);
    Message g = base(MessageKind::Gradients);
    g.origin = 2;
    g.writtenAt = 11.0;
    g.round = 99;
    g.lease = {3, 40};
    g.last = true;
    for (int s : {0, 5, 17}) {
        auto it = item(s, 96);
        it.contributionIds = {(std::uint64_t(2) << 40) | 99, std::numeric_limits<std::uint64_t>::max()};
        // Held for a slow owner (one- and two-byte varints), or the default left off.
        it.windows = s == 5 ? 300 : s == 17 ? 2 : 1;
        g.shards.push_back(it);
    }
    out.push_back(g);
    Message v = base(MessageKind::Values);
    v.round = 4;
    v.shards = {item(1, 1), item(2, 4096)};
    out.push_back(v);
    Message c = base(MessageKind::CatchUpRequest);
    c.origin = 0;
    c.lease = {1, -0.0}; // -0.0 has a bit set: it is sent
    out.push_back(c);
    Message d = base(MessageKind::CenterDelta);
    d.to = 0;
    auto di = item(4, 320);
    di.checksum = 0xFEEDFACECAFEBEEFull;
    di.sequence = 12;
    d.shards.push_back(di);
    d.buffers = floats(264);
    out.push_back(d);
    Message cv = base(MessageKind::CenterValues);
    cv.from = 0;
    cv.shards.push_back(di);
    out.push_back(cv);
    Message h = base(MessageKind::Handoff);
    auto hi = item(9, 128);
    hi.optimizer.m = floats(128, -1);
    hi.optimizer.v = floats(128, 2);
    hi.optimizer.step = 321;
    hi.base = floats(128, 3);
    hi.baseVersion = 17;
    hi.sentValues = floats(128, 4);
    hi.windowsSinceSync = 5;
    hi.syncInFlight = true;
    hi.syncSequence = 6;
    hi.finishing = true;
    h.shards.push_back(hi);
    out.push_back(h);
    Message fg = base(MessageKind::FullGradient);
    fg.to = 0;
    fg.round = 1;
    fg.tensor = floats(101056);
    fg.buffers = floats(264);
    out.push_back(fg);
    Message fv = base(MessageKind::FullValues);
    fv.from = 0;
    fv.tensor = floats(101056);
    out.push_back(fv);
    Message ld = base(MessageKind::LocalDelta);
    ld.to = 0;
    ld.tensor = floats(101056);
    ld.buffers = floats(264);
    out.push_back(ld);
    Message rc = base(MessageKind::RingChunk);
    rc.round = 5000;
    rc.chunk = 3;
    rc.tensor = floats(20000);
    out.push_back(rc);
    Message gp = base(MessageKind::GossipParams);
    gp.tensor = floats(101056);
    gp.buffers = floats(264);
    out.push_back(gp);
    Message oa = base(MessageKind::OwnerAnnounce);
    oa.origin = 1;
    oa.shards.push_back(ShardItem{});
    oa.shards.back().shard = 12;
    oa.shards.back().version = 70;
    out.push_back(oa);
    Message pull = base(MessageKind::HubPull);
    pull.from = 0;
    pull.round = 812;
    pull.owners = {0, 2}; // the regions the center hears
    auto pi = ShardItem{};
    pi.shard = 4;
    pi.version = 33;
    pi.checksum = 0x0123456789ABCDEFull;
    pull.shards.push_back(pi);
    out.push_back(pull);
    Message copy = base(MessageKind::HubCopy);
    copy.to = 0;
    copy.round = 812;
    auto ci = item(4, 320);
    ci.version = 34;
    ci.delta = true;
    ci.deltaFrom = 33;
    copy.shards.push_back(ci);
    copy.buffers = floats(264);
    out.push_back(copy);
    Message empty; // every field at its default: a zero-byte encoding
    out.push_back(empty);
    return out;
}

// Messages with coded tensors (issue 14), one per codec and field kind:
// gradients as int8 and top-k, a value delta as fp16, a handoff with its
// residual, published copy and delta in flight, a full-model delta with its copy version.
std::vector<Message> codedKinds() {
    std::vector<Message> out;
    Message g;
    g.kind = MessageKind::Gradients;
    g.from = 3;
    g.to = 1;
    g.origin = 2;
    auto i8 = item(0, 1000);
    setCoded(i8.data, i8.coding, encode(floats(1000).sin_(), parseCodec("int8")));
    auto tk = item(5, 4000);
    setCoded(tk.data, tk.coding, encode(floats(4000).cos_(), parseCodec("topk:0.01")));
    g.shards = {i8, tk};
    out.push_back(g);
    Message v;
    v.kind = MessageKind::Values;
    v.from = 1;
    v.to = 2;
    auto vd = item(7, 333);
    vd.delta = true;
    vd.deltaFrom = 300; // a two-byte tag and a two-byte varint
    setCoded(vd.data, vd.coding, encode(floats(333).mul_(1e-3), parseCodec("fp16")));
    v.shards = {vd};
    out.push_back(v);
    Message h;
    h.kind = MessageKind::Handoff;
    auto hi = item(9, 128);
    hi.residual = floats(128, -7);
    hi.published = floats(128, 9);
    hi.sentDelta = floats(128, 11);
    hi.deltaFrom = 4;
    h.shards.push_back(hi);
    out.push_back(h);
    Message fv;
    fv.kind = MessageKind::FullValues;
    fv.round = 12;
    fv.tensorDelta = true;
    fv.copyVersion = 11;
    setCoded(fv.tensor, fv.tensorCoding, encode(floats(101056).mul_(1e-4), parseCodec("int8")));
    out.push_back(fv);
    Message rc;
    rc.kind = MessageKind::RingChunk;
    rc.round = 5103;
    rc.chunk = 0;
    setCoded(rc.tensor, rc.tensorCoding, encode(floats(0), parseCodec("int8"))); // an empty chunk
    out.push_back(rc);
    // The zstd stage on each lossy codec (a frame in place of the values).
    Message z;
    z.kind = MessageKind::CenterDelta;
    z.from = 2;
    z.round = 40;
    auto zi = item(1, 3000);
    setCoded(zi.data, zi.coding, encode(floats(3000).sin_().mul_(1e-3), parseCodec("int8+zstd")));
    auto zh = item(2, 500);
    setCoded(zh.data, zh.coding, encode(floats(500).cos_(), parseCodec("fp16+zstd")));
    auto zk = item(3, 2000);
    setCoded(zk.data, zk.coding, encode(floats(2000).sin_(), parseCodec("topk:0.05+zstd")));
    auto ze = item(4, 0);
    setCoded(ze.data, ze.coding, encode(floats(0), parseCodec("int8+zstd"))); // an empty frame
    z.shards = {zi, zh, zk, ze};
    // Batch-norm statistics beside a lossy class codec travel as fp16
    // (statisticsCodec), with no zstd stage of their own.
    setBatchNormStats(z, floats(264).cos_().mul_(3.0), parseCodec("int8+zstd"));
    out.push_back(z);
    // A ring chunk's statistics slice beside fp16 gradients.
    Message rs;
    rs.kind = MessageKind::RingChunk;
    rs.round = 5104;
    rs.chunk = 2;
    setCoded(rs.tensor, rs.tensorCoding, encode(floats(700).sin_(), parseCodec("fp16")));
    setBatchNormStats(rs, floats(40).mul_(0.1), parseCodec("fp16"));
    out.push_back(rs);
    return out;
}

// The fp32 tensor a coded field stands for.
at::Tensor decoded(const at::Tensor &field, const TensorCoding &c) {
    return c.codec == Codec::Fp32 ? field : decode(codedOf(field, c));
}

bool sameTensor(const at::Tensor &a, const at::Tensor &b) {
    if (a.defined() != b.defined())
        return false;
    return !a.defined() || (a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && at::equal(a, b));
}

} // namespace

class WireFormatTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // It runs beside another test (CONCURRENT): one LibTorch thread, and
    // freed tensor memory kept in the heap, as the other simulator tests.
    void initTestCase() { setTestThreads(); }

    void everyKindChargesItsExactEncoding() {
        const auto messages = everyKind();
        std::set<int> kinds;
        for (const auto &m : messages) {
            const auto pb = rpc::toProto(m);
            QCOMPARE(encodedSize(m), std::uint64_t(pb.ByteSizeLong()));
            QCOMPARE(m.bytes(), std::uint64_t(pb.ByteSizeLong()) + kGrpcFramingBytes);
            // The encoding really is that long (not only ByteSizeLong's estimate).
            QCOMPARE(std::uint64_t(pb.SerializeAsString().size()), encodedSize(m));
            kinds.insert(int(m.kind));
        }
        QCOMPARE(int(kinds.size()), kMessageKinds);
    }

    void everyKindRoundTripsFieldForField() {
        for (const auto &m : everyKind()) {
            synaptic::v1::NodeMessage parsed;
            QVERIFY(parsed.ParseFromString(rpc::toProto(m).SerializeAsString()));
            const Message back = rpc::fromProto(parsed);
            QCOMPARE(int(back.kind), int(m.kind));
            QCOMPARE(back.from, m.from);
            QCOMPARE(back.to, m.to);
            QCOMPARE(back.round, m.round);
            QCOMPARE(back.lease.epoch, m.lease.epoch);
            QCOMPARE(std::signbit(back.lease.expiresAt), std::signbit(m.lease.expiresAt));
            QCOMPARE(back.lease.expiresAt, m.lease.expiresAt);
            QCOMPARE(back.sentAt, m.sentAt);
            QCOMPARE(back.origin, m.origin);
            QCOMPARE(back.writtenAt, m.writtenAt);
            QCOMPARE(back.chunk, m.chunk);
            QCOMPARE(back.last, m.last);
            QCOMPARE(back.join, m.join);
            QCOMPARE(back.owners, m.owners);
            QVERIFY(sameTensor(back.tensor, m.tensor));
            QVERIFY(sameTensor(back.buffers, m.buffers));
            QCOMPARE(back.shards.size(), m.shards.size());
            for (std::size_t i = 0; i < m.shards.size(); ++i) {
                const auto &a = back.shards[i];
                const auto &b = m.shards[i];
                QCOMPARE(a.shard, b.shard);
                QCOMPARE(a.version, b.version);
                QCOMPARE(a.checksum, b.checksum);
                QCOMPARE(a.sequence, b.sequence);
                QCOMPARE(a.contributionIds, b.contributionIds);
                QCOMPARE(a.windows, b.windows);
                QCOMPARE(a.baseVersion, b.baseVersion);
                QCOMPARE(a.windowsSinceSync, b.windowsSinceSync);
                QCOMPARE(a.syncInFlight, b.syncInFlight);
                QCOMPARE(a.syncSequence, b.syncSequence);
                QCOMPARE(a.finishing, b.finishing);
                QCOMPARE(a.optimizer.step, b.optimizer.step);
                QVERIFY(sameTensor(a.data, b.data));
                QVERIFY(sameTensor(a.base, b.base));
                QVERIFY(sameTensor(a.sentValues, b.sentValues));
                QVERIFY(sameTensor(a.optimizer.m, b.optimizer.m));
                QVERIFY(sameTensor(a.optimizer.v, b.optimizer.v));
            }
        }
    }

    void codedTensorsChargeTheirEncodingAndDecode() {
        for (const auto &m : codedKinds()) {
            const auto pb = rpc::toProto(m);
            QCOMPARE(encodedSize(m), std::uint64_t(pb.ByteSizeLong()));
            QCOMPARE(std::uint64_t(pb.SerializeAsString().size()), encodedSize(m));
            synaptic::v1::NodeMessage parsed;
            QVERIFY(parsed.ParseFromString(pb.SerializeAsString()));
            const Message back = rpc::fromProto(parsed);
            QCOMPARE(back.tensorDelta, m.tensorDelta);
            QCOMPARE(back.copyVersion, m.copyVersion);
            // The receiver gets the fp32 tensor the codec stands for, and nothing coded.
            QCOMPARE(back.tensorCoding.codec, Codec::Fp32);
            QVERIFY(sameTensor(back.tensor, m.tensor.defined() ? decoded(m.tensor, m.tensorCoding) : at::Tensor()));
            QCOMPARE(back.buffersCoding.codec, Codec::Fp32);
            QVERIFY(sameTensor(back.buffers, m.buffers.defined() ? decoded(m.buffers, m.buffersCoding) : at::Tensor()));
            QCOMPARE(back.shards.size(), m.shards.size());
            for (std::size_t i = 0; i < m.shards.size(); ++i) {
                const auto &a = back.shards[i];
                const auto &b = m.shards[i];
                QCOMPARE(a.coding.codec, Codec::Fp32);
                QVERIFY(sameTensor(a.data, decoded(b.data, b.coding)));
                QCOMPARE(a.delta, b.delta);
                QCOMPARE(a.deltaFrom, b.deltaFrom);
                QVERIFY(sameTensor(a.residual, b.residual));
                QVERIFY(sameTensor(a.published, b.published));
                QVERIFY(sameTensor(a.sentDelta, b.sentDelta));
            }
            // The simulator's receiving side decodes the same way.
            Message local = m;
            decodePayloads(local);
            QVERIFY(sameTensor(local.tensor, back.tensor));
            QVERIFY(sameTensor(local.buffers, back.buffers));
            QCOMPARE(local.buffersCoding.codec, Codec::Fp32);
        }
        // A coded tensor is far smaller than its fp32 form: the bytes are real.
        const auto fv = codedKinds()[3];
        QVERIFY(encodedSize(fv) < 101056 + 4 * 400 + 64);
        // The zstd frame is what travels: the data field holds it, flagged.
        const auto z = codedKinds()[5];
        const auto zpb = rpc::toProto(z);
        QCOMPARE(int(zpb.shards(0).data().compression()), int(synaptic::v1::Tensor::ZSTD));
        QCOMPARE(zpb.shards(0).data().data(), *z.shards[0].coding.packed);
        QVERIFY(zpb.shards(0).data().data().size() < 3000);
        // The statistics went as fp16: two bytes each, not packed, and the
        // receiver's fp32 copy is within fp16's step of what was sent.
        QCOMPARE(int(zpb.buffers().codec()), int(synaptic::v1::Tensor::FP16));
        QCOMPARE(int(zpb.buffers().compression()), int(synaptic::v1::Tensor::NONE));
        QCOMPARE(batchNormBytes(z), std::uint64_t(2 * 264));
        const auto sent = floats(264).cos_().mul_(3.0);
        const auto got = rpc::fromProto(zpb).buffers;
        QVERIFY(((got - sent).abs() <= sent.abs() * std::ldexp(1.0, -11)).all().item<bool>());
    }

    // Hostile or broken frames are refused naming the field, before the
    // receiver allocates more than the tensor's own size.
    void badZstdFramesAreRefused_data() {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("expected");
        QTest::newRow("truncated frame") << "truncated" << "shards[0].data.data: zstd frame is truncated";
        QTest::newRow("frame of another size") << "size" << "the tensor needs 3000";
        QTest::newRow("shape beyond numel") << "shape" << "a shape of 3001 coded values for numel 3000";
        QTest::newRow("unknown compression") << "compression" << "shards[0].data.compression: unknown compression 5";
        QTest::newRow("compressed plain tensor") << "plain" << "shards[1].data.compression: ZSTD (1) on a plain tensor";
    }
    void badZstdFramesAreRefused() {
        QFETCH(QString, problem);
        QFETCH(QString, expected);
        auto pb = rpc::toProto(codedKinds()[5]);
        auto *t = pb.mutable_shards(0)->mutable_data();
        if (problem == "truncated")
            t->mutable_data()->pop_back();
        else if (problem == "size") {
            const std::string other(2999, '\1');
            t->set_data(zstdPack(other.data(), other.size()));
        } else if (problem == "shape")
            t->set_shape(0, 3001);
        else if (problem == "compression")
            t->set_compression(synaptic::v1::Tensor::Compression(5));
        else if (problem == "plain") {
            // fp32 travels raw: a frame there is refused, not guessed at.
            auto *raw = pb.mutable_shards(1)->mutable_data();
            raw->set_codec(synaptic::v1::Tensor::RAW);
            raw->set_compression(synaptic::v1::Tensor::ZSTD);
        }
        try {
            rpc::fromProto(pb);
            QFAIL("decoded a bad zstd frame");
        } catch (const rpc::WireError &e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }

    // Statistics travel raw or at fp16, never packed; int8, top-k or a zstd
    // frame there is refused, naming the field (no sender makes them: a
    // peer out of protocol).
    void statisticsCodedOtherwiseAreRefused() {
        for (const char *codec : {"int8", "topk:0.5", "fp16+zstd"}) {
            Message m;
            m.kind = MessageKind::LocalDelta;
            m.from = 3;
            setCoded(m.tensor, m.tensorCoding, encode(floats(100), parseCodec("fp16")));
            setCoded(m.buffers, m.buffersCoding, encode(floats(264), parseCodec(codec)));
            try {
                rpc::fromProto(rpc::toProto(m));
                QFAIL(codec);
            } catch (const rpc::WireError &e) {
                QVERIFY2(QString(e.what()).startsWith("buffers: batch-norm statistics coded as"), e.what());
            }
        }
    }

    void badCodedTensorsAreRefused_data() {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("expected");
        QTest::newRow("scales") << "scales" << "scales for";
        QTest::newRow("codec") << "codec" << "unknown codec";
        QTest::newRow("index range") << "range" << "ascending and below numel";
        QTest::newRow("index order") << "order" << "ascending and below numel";
        QTest::newRow("numel") << "numel" << "coded values for numel";
        QTest::newRow("dtype") << "dtype" << "needs INT8 values";
        // A few bytes must not make the receiver allocate terabytes.
        QTest::newRow("huge numel") << "huge" << "numel: 1073741824 is out of range";
        // Finite scales whose product with 127 overflows to Inf.
        QTest::newRow("overflowing scale") << "overflow" << "decodes to NaN or Inf";
    }
    void badCodedTensorsAreRefused() {
        QFETCH(QString, problem);
        QFETCH(QString, expected);
        const bool topk = problem == "range" || problem == "order" || problem == "huge";
        Message m = codedKinds()[0];
        m.shards.erase(m.shards.begin() + (topk ? 0 : 1));
        auto pb = rpc::toProto(m);
        auto *t = pb.mutable_shards(0)->mutable_data();
        if (problem == "scales")
            t->mutable_scales()->resize(t->scales().size() - 4);
        else if (problem == "codec")
            t->set_codec(synaptic::v1::Tensor::Codec(9));
        else if (problem == "range") {
            const std::int32_t far = 1 << 30;
            std::memcpy(t->mutable_indices()->data() + t->indices().size() - 4, &far, 4);
        } else if (problem == "order") {
            std::string &ix = *t->mutable_indices();
            std::swap_ranges(ix.begin(), ix.begin() + 4, ix.begin() + 4);
        } else if (problem == "numel")
            t->set_numel(t->numel() + 1);
        else if (problem == "dtype")
            t->set_dtype(synaptic::v1::Tensor::FLOAT32);
        else if (problem == "huge")
            t->set_numel(std::int64_t(1) << 30);
        else if (problem == "overflow") {
            const float big = 3e38f;
            std::memcpy(t->mutable_scales()->data(), &big, 4);
        }
        try {
            rpc::fromProto(pb);
            QFAIL("decoded a bad coded tensor");
        } catch (const rpc::WireError &e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
            QVERIFY2(QString(e.what()).startsWith("shards[0].data"), e.what());
        }
    }

    void tensorsAreRawLittleEndianBytes() {
        // 1.0f is 0x3F800000: its four bytes, lowest first, are on the wire.
        synaptic::v1::Tensor t;
        rpc::encodeTensor(at::ones({2}, at::kFloat), &t);
        QCOMPARE(int(t.dtype()), int(synaptic::v1::Tensor::FLOAT32));
        QCOMPARE(t.shape_size(), 1);
        QCOMPARE(t.shape(0), std::int64_t(2));
        const std::string expected("\x00\x00\x80\x3f\x00\x00\x80\x3f", 8);
        QCOMPARE(t.data(), expected);
    }

    void badTensorsAreRefusedNamingTheField_data() {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("expected");
        QTest::newRow("length") << "length" << "bytes of data for a shape";
        QTest::newRow("dtype") << "dtype" << "unknown tensor dtype";
        QTest::newRow("nan") << "nan" << "NaN or Inf";
        QTest::newRow("inf") << "inf" << "NaN or Inf";
        QTest::newRow("negative dim") << "negative" << "negative dimension";
        QTest::newRow("unknown kind") << "kind" << "unknown message kind";
    }
    void badTensorsAreRefusedNamingTheField() {
        QFETCH(QString, problem);
        QFETCH(QString, expected);
        Message m;
        m.kind = MessageKind::Values;
        m.shards.push_back(item(2, 8));
        auto pb = rpc::toProto(m);
        auto *t = pb.mutable_shards(0)->mutable_data();
        if (problem == "length")
            t->mutable_data()->pop_back();
        else if (problem == "dtype")
            t->set_dtype(synaptic::v1::Tensor::DType(42));
        else if (problem == "nan" || problem == "inf") {
            const float bad = problem == "nan" ? std::nanf("") : std::numeric_limits<float>::infinity();
            std::memcpy(t->mutable_data()->data() + 4, &bad, 4);
        } else if (problem == "negative")
            t->set_shape(0, -8);
        else if (problem == "kind")
            pb.set_kind(synaptic::v1::MessageKind(77));
        try {
            rpc::fromProto(pb);
            QFAIL("decoded a bad message");
        } catch (const rpc::WireError &e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
            if (problem != "kind")
                QVERIFY2(QString(e.what()).startsWith("shards[0].data"), e.what());
        }
    }

    // Every message real runs put on the wire, strategy by strategy (with a
    // shard move and a kill/revive for handoffs, announcements and joins):
    // the simulator charged each exactly its encoding plus framing.
    void realRunsChargeTheEncoding_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("codecs");
        for (const char *s : {"synaptic", "param_server", "diloco", "allreduce", "gossip", "hier_allreduce", "hier_diloco"})
            QTest::newRow(s) << s << "fp32";
        // Every codec on every class it applies to (issue 14).
        for (const char *s : {"synaptic", "param_server", "diloco", "allreduce", "gossip", "hier_allreduce", "hier_diloco"})
            QTest::newRow((std::string(s) + " coded").c_str()) << s << "int8,fp16,topk:0.05";
        // The zstd stage: the frames a run sends, charged to the byte.
        for (const char *s : {"synaptic", "hier_diloco"})
            QTest::newRow((std::string(s) + " zstd").c_str()) << s << "fp16+zstd,int8+zstd,int8+zstd";
    }
    void realRunsChargeTheEncoding() {
        QFETCH(QString, strategy);
        QFETCH(QString, codecs);
        ClusterConfig config = loadClusterConfig(QFINDTESTDATA("data/tiny_cluster.json").toStdString());
        config.strategy = strategy.toStdString();
        const auto names = codecs.split(',');
        config.codecs.gradients = parseCodec(names.value(0).toStdString());
        config.codecs.values = parseCodec(names.value(1, "fp32").toStdString());
        config.codecs.center = parseCodec(names.value(2, "fp32").toStdString());
        config.dataDir = {};
        static const SimData data = [&] {
            auto d = loadSimData(config, "cpu");
            d.train = sliceSamples(d.train, 0, 6000);
            d.trainLabels.resize(6000);
            return d;
        }();
        SimOptions o;
        o.stepsPerEdge = 12;
        o.finalFullEvaluation = false;
        using K = SimCommand::Kind;
        o.commands = {SimCommand{K::MoveShard, 0.2, 0, 0, 1}, SimCommand{K::KillNode, 0.3, -1, -1, 4},
                      SimCommand{K::ReviveNode, 0.6, -1, -1, 4}};
        std::map<int, int> perKind;
        std::uint64_t checked = 0, charged = 0, framesChecked = 0, statisticsChecked = 0;
        // Every class is lossy in the coded rows and fp32 in the plain ones,
        // so every message's batch-norm statistics travel at the one width
        // statisticsCodec gives (these models' statistics fit fp16).
        const Codec statisticsWidth = codecs == "fp32" ? Codec::Fp32 : Codec::Fp16;
        o.messageTap = [&](const Message &m, std::uint64_t bytes) {
            const auto pb = rpc::toProto(m);
            if (bytes != pb.ByteSizeLong() + kGrpcFramingBytes)
                QFAIL(qPrintable(QString("%1 charged %2, encodes to %3 + 5")
                                     .arg(messageKindName(m.kind)).arg(bytes).arg(pb.ByteSizeLong())));
            ++perKind[int(m.kind)];
            ++checked;
            charged += bytes;
            if (m.buffers.defined() && m.buffers.numel() > 0) {
                ++statisticsChecked;
                if (m.buffersCoding.codec != statisticsWidth)
                    QFAIL(qPrintable(QString("%1 carries its statistics at the wrong width").arg(messageKindName(m.kind))));
                Message local = m;
                decodePayloads(local);
                if (!sameTensor(rpc::fromProto(pb).buffers, local.buffers))
                    QFAIL(qPrintable(QString("%1: the statistics decode differently").arg(messageKindName(m.kind))));
            }
            // A zstd frame must stand for the values the simulator decodes
            // from: a live receiver reads the frame, the simulator the values.
            bool framed = bool(m.tensorCoding.packed);
            for (const auto &s : m.shards)
                framed = framed || bool(s.coding.packed);
            if (!framed)
                return;
            ++framesChecked;
            Message local = m;
            decodePayloads(local);
            const Message back = rpc::fromProto(pb);
            bool same = sameTensor(back.tensor, local.tensor) && back.shards.size() == local.shards.size();
            for (std::size_t i = 0; same && i < local.shards.size(); ++i)
                same = sameTensor(back.shards[i].data, local.shards[i].data);
            if (!same)
                QFAIL(qPrintable(QString("%1: the frame decodes to other values").arg(messageKindName(m.kind))));
        };
        Simulation sim(config, data.train, data.trainLabels, data.test, o);
        const auto r = sim.run();
        // diloco exchanges once per budget here, gossip every 4 steps: fewer messages.
        QVERIFY2(checked >= 10, qPrintable(QString::number(checked)));
        QCOMPARE(charged, r.totalBytes); // the run's byte figures are these bytes
        QCOMPARE(framesChecked > 0, codecs.contains("zstd"));
        QVERIFY2(statisticsChecked > 0, "no message carried batch-norm statistics");
        if (strategy == "synaptic") {
            for (auto k : {MessageKind::Heartbeat, MessageKind::LeaseGrant, MessageKind::Gradients,
                           MessageKind::Values, MessageKind::CatchUpRequest, MessageKind::CenterDelta,
                           MessageKind::CenterValues, MessageKind::Handoff, MessageKind::OwnerAnnounce})
                QVERIFY2(perKind[int(k)] > 0, messageKindName(k));
        }
    }
};

QTEST_GUILESS_MAIN(WireFormatTest)
#include "tst_wire_format.moc"
