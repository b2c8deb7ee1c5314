// The codecs' zstd stage (engine/codec/zstd_frame.h) against hostile and
// broken frames: each is refused with what is wrong, and a good frame gives
// back its bytes. Frames are made by the real libzstd, as a peer would.
#include "core/engine/codec/zstd_frame.h"

#include <QTest>

#include <zstd.h>

#include <cstdint>
#include <stdexcept>
#include <string>

using namespace synaptic::engine;

class TestZstdFrame : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aFrameGivesBackItsBytes() {
        QVERIFY(zstdAvailable());
        QCOMPARE(QString::fromStdString(zstdVersion()), QString(ZSTD_versionString()));
        for (const std::size_t size : {std::size_t(0), std::size_t(1), std::size_t(100'000)}) {
            std::string bytes(size, '\0');
            for (std::size_t i = 0; i < size; ++i)
                bytes[i] = char((i * 7) % 13);
            const std::string frame = zstdPack(bytes.data(), bytes.size());
            std::string back(size, '\1');
            zstdUnpack(frame, back.data(), size);
            QCOMPARE(back, bytes);
        }
    }

    void badFramesAreRefused_data() {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not a frame") << "garbage" << "not a zstd frame";
        QTest::newRow("empty") << "empty" << "not a zstd frame";
        // A skippable frame "holds" 0 bytes whatever it carries.
        QTest::newRow("skippable frame") << "skippable" << "not a zstd frame";
        QTest::newRow("another size") << "size" << "holds 1000 bytes, the tensor needs 999";
        QTest::newRow("truncated") << "truncated" << "truncated or corrupt";
        QTest::newRow("trailing bytes") << "trailing" << "followed by 5 other bytes";
        QTest::newRow("two frames") << "two" << "followed by";
        // A block that does not decode (its type set to the reserved 3).
        QTest::newRow("reserved block type") << "block" << "truncated or corrupt";
        QTest::newRow("no content size") << "streamed" << "without its content size";
    }
    void badFramesAreRefused() {
        QFETCH(QString, problem);
        QFETCH(QString, expected);
        const std::string bytes(1000, 'x');
        std::string frame = zstdPack(bytes.data(), bytes.size());
        std::uint64_t want = 1000;
        if (problem == "garbage")
            frame = std::string(64, '\x7f');
        else if (problem == "empty")
            frame.clear();
        else if (problem == "skippable") {
            frame = std::string("\x50\x2a\x4d\x18\x04\x00\x00\x00", 8) + "abcd";
            want = 0;
        } else if (problem == "size")
            want = 999;
        else if (problem == "truncated")
            frame.pop_back();
        else if (problem == "trailing")
            frame += "extra";
        else if (problem == "two")
            frame += zstdPack(bytes.data(), 10);
        else if (problem == "block") {
            // Magic (4), frame header descriptor (1), then this frame's
            // window/size fields; the first block header follows. Its bits
            // 1-2 are the block type: 3 is reserved, never valid.
            const auto descriptor = static_cast<unsigned char>(frame[4]);
            const bool single = descriptor & 0x20;
            const int sizeBytes[] = {single ? 1 : 0, 2, 4, 8};
            const std::size_t header = 5 + (single ? 0 : 1) + std::size_t(sizeBytes[descriptor >> 6]) +
                                       std::size_t((descriptor & 3) == 3 ? 4 : (descriptor & 3));
            frame[header] = char(static_cast<unsigned char>(frame[header]) | 0x06);
        }
        else if (problem == "streamed") {
            // A valid frame whose header leaves the size out, as a streaming
            // compressor writes it: the receiver could not bound it.
            ZSTD_CCtx *cctx = ZSTD_createCCtx();
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
            frame.assign(ZSTD_compressBound(bytes.size()), '\0');
            frame.resize(ZSTD_compress2(cctx, frame.data(), frame.size(), bytes.data(), bytes.size()));
            ZSTD_freeCCtx(cctx);
        }
        std::string out(std::size_t(want), '\0');
        try {
            zstdUnpack(frame, out.data(), want);
            QFAIL("accepted a bad frame");
        } catch (const std::invalid_argument &e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestZstdFrame)
#include "tst_zstd_frame.moc"
