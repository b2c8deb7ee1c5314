// Embedding shards and their hot updates (issue 16): sparse row merges,
// row versions, owner-to-owner ordering, the lag bound (and a broken guard
// the audit catches), the language-ID model and the task registry.
#include "long_test.h"
#include "test_threads.h"
#include "core/data/fortune_corpus.h"
#include "core/engine/config_error.h"
#include "core/engine/embeddings/center_log.h"
#include "core/engine/embeddings/embedding_edge.h"
#include "core/engine/embeddings/embedding_owner.h"
#include "core/engine/embeddings/held_rows.h"
#include "core/engine/embeddings/hot_update_sim.h"
#include "core/engine/embeddings/row_delta.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/tasks/langid_model.h"
#include "core/engine/tasks/langid_training.h"
#include "core/engine/tasks/task_registry.h"
#include "core/engine/tasks/text_batches.h"
#include "core/engine/tasks/trigram_baseline.h"

#include <QTest>

#include <torch/torch.h>

#include <cmath>
#include <cstdlib>

using namespace synaptic;
using namespace synaptic::engine;

namespace {

std::string testData(const std::string &name) {
    const char *dir = std::getenv("SYNAPTIC_TEST_DATA");
    return std::string(dir ? dir : "tests/data") + "/" + name;
}

// A small corpus: four languages, the scenario's new one among them.
const data::TextCorpus &smallCorpus() {
    static const data::TextCorpus corpus = [] {
        data::FortuneOptions o;
        o.maxPerLanguage = 300;
        o.languages = {"en", "de", "ru", "eo"};
        return data::loadFortuneCorpus(data::resolveFortuneDir(""), o);
    }();
    return corpus;
}

HotUpdateOptions smallScenario() {
    HotUpdateOptions o;
    o.buckets = 1 << 14;
    o.duration = 1.5;
    o.newLanguageAt = 0.5;
    o.warmStartEpochs = 1;
    o.evalEvery = 0.5;
    o.evalSubset = 100;
    o.maxPerLanguage = 300;
    return o;
}

// One embedding layer of `rows` rows in two shards, split in the middle.
ShardPlan twoShardPlan(std::int64_t rows) {
    ShardPlan plan;
    plan.shards.push_back({0, "embedding", 0, rows / 2, rows / 2});
    plan.shards.push_back({1, "embedding", rows / 2, rows, rows - rows / 2});
    return plan;
}

} // namespace

class TestEmbeddings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { setTestThreads(1); }

    void aSparseMergeEqualsTheDenseOneOnTouchedRows() {
        torch::manual_seed(3);
        const auto initial = torch::randn({100, 8});
        auto sparseTable = initial.clone();
        VersionedRows rows(1000, sparseTable); // rows 1000..1099
        const std::vector<std::int64_t> touched{1003, 1017, 1042};
        const auto grads = torch::randn({3, 8});
        const auto change = rows.applyGradients(touched, grads, 0.5, /*shard=*/4);

        auto dense = torch::zeros({100, 8});
        dense.index_put_({torch::tensor({3, 17, 42})}, grads);
        const auto expected = initial - 0.5 * dense;
        QVERIFY(torch::allclose(sparseTable, expected, 0, 0)); // the same float operations
        // Untouched rows are bit for bit what they were; touched versions went to 1.
        const auto untouched = torch::ones({100}, torch::kBool).index_put_({torch::tensor({3, 17, 42})}, false);
        QVERIFY(torch::equal(sparseTable.index({untouched}), initial.index({untouched})));
        QCOMPARE(rows.version(1003), std::uint64_t(1));
        QCOMPARE(rows.version(1004), std::uint64_t(0));
        QCOMPARE(change.rows, touched);
        QCOMPARE(change.versions, (std::vector<std::uint64_t>{1, 1, 1}));
        QVERIFY(torch::allclose(change.values, grads * -0.5));
        // Header, row gaps as zigzag varints (1003: 2 bytes, 14 and 25: 1 each), versions 1 byte each, fp32 values.
        QCOMPARE(change.keyBytes(), std::uint64_t(16 + 4 + 3));
        QCOMPARE(change.wireBytes(), std::uint64_t(16 + 4 + 3 + 3 * 8 * 4));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, rows.applyGradients({999}, torch::zeros({1, 8}), 1.0, 4));
    }

    void anOwnersMergeIsTheDenseMeanOfItsRegionsGradients() {
        // Three edges' windows, overlapping rows: the owner sums per row and
        // divides by the region's edges, as a dense mean would.
        torch::manual_seed(5);
        const auto initial = torch::randn({20, 4});
        EmbeddingOwner owner(/*shard=*/2, /*region=*/0, /*regions=*/2, /*begin=*/100, initial.clone());
        const std::vector<std::vector<std::int64_t>> rows{{101, 105}, {105, 110}, {101, 105, 119}};
        auto dense = torch::zeros({20, 4});
        for (const auto &r : rows) {
            const auto g = torch::randn({std::int64_t(r.size()), 4});
            owner.addGradients(r, g);
            for (std::size_t k = 0; k < r.size(); ++k)
                dense[r[k] - 100] += g[std::int64_t(k)];
        }
        const auto m = owner.merge(/*lr=*/0.5, /*contributors=*/3);
        const auto expected = initial - 0.5 * dense / 3.0;
        QVERIFY(torch::allclose(owner.rows().values(), expected, 1e-6, 1e-6));
        QCOMPARE(m.change.rows, (std::vector<std::int64_t>{101, 105, 110, 119}));
        QCOMPARE(owner.rows().version(105), std::uint64_t(1)); // one merge, one version
        QCOMPARE(owner.rows().version(102), std::uint64_t(0));
        QCOMPARE(m.seq, std::uint64_t(1));
        QCOMPARE(m.publishSeq, std::uint64_t(1));
        // The other region adds the same change to its copy: the copies agree.
        EmbeddingOwner other(2, 1, 2, 100, initial.clone());
        QCOMPARE(other.receiveChange(0, m.seq, m.seq, m.change).size(), std::size_t(1));
        QVERIFY(torch::allclose(other.rows().values(), owner.rows().values(), 1e-6, 1e-6));
        // Until the center confirms it, the change stays to be reported.
        QCOMPARE(owner.unreported().size(), std::size_t(1));
        owner.acknowledge(1);
        QCOMPARE(owner.unreported().size(), std::size_t(0));
    }

    void rowValuesTravelCodedAndChargedAsCoded() {
        torch::manual_seed(3);
        RowDelta delta;
        delta.shard = 1;
        delta.rows = {10, 11, 12, 13, 14, 15, 16, 17};
        delta.versions.assign(delta.rows.size(), 4);
        delta.values = torch::randn({8, 32});
        const auto exact = delta.values.clone();
        const auto fp32Bytes = delta.wireBytes();

        RowDelta asFp32 = delta;
        QCOMPARE(codeRowValues(asFp32, parseCodec("fp32")), fp32Bytes);
        QVERIFY(torch::equal(asFp32.values, exact));

        // int8: one byte per value and one scale per row, what the receiver decodes.
        delta.values[3] *= 1000.0; // one large row must not coarsen the others
        const auto exact2 = delta.values.clone();
        RowDelta asInt8 = delta;
        asInt8.values = exact2.clone();
        const auto int8Bytes = codeRowValues(asInt8, parseCodec("int8"));
        QCOMPARE(int8Bytes, delta.keyBytes() + 8 * 32 + 8 * 4);
        QCOMPARE(delta.keyBytes(), std::uint64_t(16 + 8 + 8)); // rows 10..17: a byte a gap; versions a byte each
        QVERIFY(double(delta.wireBytes()) / double(int8Bytes) > 3.0);
        QVERIFY(!torch::equal(asInt8.values, exact2)); // lossy...
        for (std::int64_t r = 0; r < 8; ++r) {           // ...by half a step of its own row at most
            const double step = exact2[r].abs().max().item<double>() / 127.0;
            QVERIFY((asInt8.values[r] - exact2[r]).abs().max().item<double>() <= step / 2 + 1e-6 * step);
        }
        QVERIFY(bytesPerValue(parseCodec("int8"), 32) == 1.0 + 4.0 / 32.0);
        // The classifier's shape (12 rows of 32 weights and a bias), and an empty delta.
        RowDelta classifier;
        classifier.rows = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        classifier.versions.assign(12, 1);
        classifier.values = torch::randn({12, 33});
        const auto classifierExact = classifier.values.clone();
        QCOMPARE(codeRowValues(classifier, parseCodec("int8")), classifier.keyBytes() + 12 * 33 + 12 * 4);
        QCOMPARE(classifier.values.sizes(), classifierExact.sizes());
        QVERIFY(torch::allclose(classifier.values, classifierExact, 0, 0.02));
        RowDelta empty;
        empty.values = torch::zeros({0, 32});
        QCOMPARE(codeRowValues(empty, parseCodec("int8")), empty.wireBytes());
        QCOMPARE(asInt8.values.sizes(), exact.sizes());
        QCOMPARE(asInt8.rows, delta.rows);
        QCOMPARE(asInt8.versions, delta.versions);

        RowDelta asFp16 = delta;
        asFp16.values = exact.clone();
        QCOMPARE(codeRowValues(asFp16, parseCodec("fp16")), delta.keyBytes() + 8 * 32 * 2);
        QVERIFY(torch::allclose(asFp16.values, exact, 1e-3, 1e-3));

        // Top-k would leave parts of rows behind: refused, by the row coder and by the scenario.
        RowDelta asTopK = delta;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, codeRowValues(asTopK, parseCodec("topk:0.1")));
        auto config = loadClusterConfig(testData("tiny_cluster.json"));
        config.codecs.values = parseCodec("topk:0.1");
        auto o = smallScenario();
        o.valuesCodec.reset(); // the config's
        try {
            runHotUpdateScenario(config, smallCorpus(), o);
            QFAIL("a top-k values codec must be refused");
        } catch (const ConfigError &e) {
            QVERIFY2(QString(e.what()).contains("codecs.values"), e.what());
        }
        // So is a zstd stage: rows are charged per value, and a codec named
        // but not applied would label the figures wrongly.
        RowDelta asZstd = delta;
        try {
            codeRowValues(asZstd, parseCodec("int8+zstd"));
            QFAIL("the row coder took a zstd stage");
        } catch (const std::invalid_argument &e) {
            QVERIFY2(QString(e.what()).contains("zstd stage"), e.what());
        }
        config.codecs.values = parseCodec("int8+zstd");
        try {
            runHotUpdateScenario(config, smallCorpus(), o);
            QFAIL("a zstd values codec must be refused");
        } catch (const ConfigError &e) {
            QVERIFY2(QString(e.what()).contains("zstd stage"), e.what());
        }
    }

    void int8PublishesKeepTheLagGuardAndSpendFewerBytes() {
        auto config = loadClusterConfig(testData("tiny_cluster.json"));
        config.intraRegion.lossRate = 0.05;
        auto o = smallScenario();
        o.lagBound = 1;
        o.valuesCodec = parseCodec("fp32");
        const auto fp32 = runHotUpdateScenario(config, smallCorpus(), o);
        o.valuesCodec.reset(); // the config's, now int8
        config.codecs.values = parseCodec("int8");
        const auto int8 = runHotUpdateScenario(config, smallCorpus(), o);
        QCOMPARE(int8.lagViolations, std::uint64_t(0));
        QVERIFY(int8.catchUps > 0); // the guard still asks after lost publishes
        QVERIFY2(double(fp32.publishBytes) / double(int8.publishBytes) > 2.5,
                 (std::to_string(fp32.publishBytes) + " vs " + std::to_string(int8.publishBytes)).c_str());
        QCOMPARE(int8.valuesCodec, std::string("int8"));
        QCOMPARE(fp32.valuesCodec, std::string("fp32"));
        // What int8 costs the model is measured by bench/embeddings at full size: this
        // scenario is too small (1.5 s, 62 test texts) for accuracy to tell codecs apart.
    }

    void liveControlsTakeEffectAtAVirtualTimeAndAreLogged() {
        // The app's lag bound and stop, turned from the engine thread's own
        // frame hook: deterministic, unlike a GUI thread racing the engine.
        auto config = loadClusterConfig(testData("tiny_cluster.json"));
        config.intraRegion.lossRate = 0.05;
        auto o = smallScenario();
        o.duration = 30.0;
        o.lagBound = 64; // the first 0.5 s cannot miss that many: nobody asks
        HotUpdateControls controls;
        std::vector<HotUpdateFrame> frames;
        HotUpdateHooks hooks;
        hooks.controls = &controls;
        hooks.frame = [&](const HotUpdateFrame &f) {
            frames.push_back(f);
            if (f.virtualTime >= 0.5)
                controls.lagBound = 1;
            if (f.virtualTime >= 1.2)
                controls.stop = true;
        };
        const auto r = runHotUpdateScenario(config, smallCorpus(), o, hooks);
        QVERIFY(r.stopped);
        QVERIFY2(r.virtualSeconds >= 1.2 && r.virtualSeconds < 1.3, std::to_string(r.virtualSeconds).c_str());
        QCOMPARE(r.lagBoundChanges.size(), std::size_t(1));
        QVERIFY(r.lagBoundChanges[0].first >= 0.5 && r.lagBoundChanges[0].first < 0.6);
        QCOMPARE(r.lagBoundChanges[0].second, 1);
        for (const auto &f : frames) {
            if (f.virtualTime != r.lagBoundChanges[0].first) // a frame at the change's instant may show either
                QCOMPARE(f.lagBound, f.virtualTime < r.lagBoundChanges[0].first ? 64 : 1);
            if (f.virtualTime < r.lagBoundChanges[0].first)
                QCOMPARE(f.catchUps, std::uint64_t(0));
            QVERIFY(f.presenceP50 <= f.presenceP99);
            QVERIFY(std::isnan(f.recentRowsHeldShare) || (f.recentRowsHeldShare >= 0 && f.recentRowsHeldShare <= 1));
        }
        QVERIFY(r.catchUps > 0);       // the tighter bound made edges ask...
        QCOMPARE(r.lagViolations, std::uint64_t(0)); // ...and held
        // Warm-up stops between batches when asked, not at the end of its epochs.
        data::NgramOptions ngrams;
        ngrams.buckets = 1 << 14;
        const auto train = encodeTexts(smallCorpus().train, ngrams);
        LangIdNet model(LangIdShape{ngrams.buckets, 16, std::int64_t(smallCorpus().classCount())});
        LangIdTrainOptions warm;
        warm.epochs = 3;
        int asked = 0;
        warm.cancelled = [&] { return ++asked >= 3; };
        trainLangId(*model, train, warm);
        QCOMPARE(asked, 3); // two batches trained, then it stopped
    }

    void rowVersionsNeverGoBack() {
        auto ownerTable = torch::zeros({10, 2});
        const auto checkpoint = torch::zeros({10, 2});
        const RowShardMap map(twoShardPlan(10), "embedding");
        VersionedRows owner(0, ownerTable);
        HeldRows edge(checkpoint, map);
        owner.applyGradients({2, 5}, torch::ones({2, 2}), 1.0, 0);
        const auto first = owner.snapshot({2, 5}, 0); // versions 1
        owner.applyGradients({2}, torch::ones({1, 2}), 1.0, 0);
        const auto second = owner.snapshot({2}, 0); // version 2
        QCOMPARE(edge.accept(second), std::size_t(1));
        QCOMPARE(edge.heldCount(), std::size_t(1));
        // The older publish arrives late: row 2 stays at version 2, row 5 is new.
        QCOMPARE(edge.accept(first), std::size_t(1));
        QCOMPARE(edge.version(2), std::uint64_t(2));
        QCOMPARE(edge.gather(torch::tensor({2}, torch::kInt64), false)[0][0].item<float>(), -2.0f);
        QCOMPARE(edge.version(5), std::uint64_t(1));
        QCOMPARE(edge.accept(second), std::size_t(0)); // a repeat changes nothing
        QCOMPARE(edge.heldCount(), std::size_t(2));
    }

    void anEdgeHoldsOnlyTheRowsItTouchedOrWasSent() {
        // 4,096 rows in two shards; the edge touches three and is sent two.
        torch::manual_seed(11);
        const auto checkpoint = torch::randn({4096, 8});
        const auto pristine = checkpoint.clone();
        const RowShardMap map(twoShardPlan(4096), "embedding");
        HeldRows edge(checkpoint, map);
        QCOMPARE(edge.heldCount(), std::size_t(0));
        const auto idle = edge.bytes();

        // Reading does not hold: the checkpoint's values, nothing allocated.
        const auto rows = torch::tensor({7, 3000, 7, 12}, torch::kInt64);
        QVERIFY(torch::equal(edge.gather(rows, /*hold=*/false), pristine.index_select(0, rows)));
        QCOMPARE(edge.heldCount(), std::size_t(0));
        QVERIFY(!edge.holds(7));
        // Its data touches them: held at the checkpoint's values, version 0, duplicates once.
        QVERIFY(torch::equal(edge.gather(rows, /*hold=*/true), pristine.index_select(0, rows)));
        QCOMPARE(edge.heldCount(), std::size_t(3));
        QCOMPARE(edge.heldCount(0), std::size_t(2)); // rows 7 and 12 in the first shard
        QCOMPARE(edge.heldCount(1), std::size_t(1));
        QCOMPARE(edge.rowCount(1), std::int64_t(4096 - 2048));
        QCOMPARE(edge.version(7), std::uint64_t(0));

        // A publish of a held row and a new one: both taken, the rest untouched.
        RowDelta publish;
        publish.shard = 1;
        publish.rows = {3000, 4000};
        publish.versions = {1, 1};
        publish.values = torch::full({2, 8}, 5.0f);
        QCOMPARE(edge.accept(publish), std::size_t(2));
        QCOMPARE(edge.heldCount(1), std::size_t(2));
        const auto mixed = edge.gather(torch::tensor({4000, 1, 7}, torch::kInt64), false);
        QVERIFY(torch::equal(mixed[0], torch::full({8}, 5.0f)));
        QVERIFY(torch::equal(mixed[1], pristine[1])); // never held: the checkpoint's
        QVERIFY(torch::equal(mixed[2], pristine[7]));
        // The checkpoint is shared and never written.
        QVERIFY(torch::equal(checkpoint, pristine));
        // Memory: the slot index and a first block of 1,024 rows, not the table.
        QVERIFY(edge.bytes() > idle);
        QVERIFY2(edge.bytes() < edge.denseBytes() / 2, qPrintable(QString::number(edge.bytes())));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, edge.gather(torch::tensor({4096}, torch::kInt64), true));

        // A row listed twice keeps its newest entry, whatever the order.
        RowDelta twice;
        twice.rows = {100, 100};
        twice.versions = {3, 2};
        twice.values = torch::stack({torch::full({8}, 3.0f), torch::full({8}, 2.0f)});
        QCOMPARE(edge.accept(twice), std::size_t(1));
        QCOMPARE(edge.version(100), std::uint64_t(3));
        QVERIFY(torch::equal(edge.gather(torch::tensor({100}, torch::kInt64), false)[0], torch::full({8}, 3.0f)));
        // Sizes that disagree are refused before anything changes.
        RowDelta bad;
        bad.rows = {200, 201};
        bad.versions = {1, 1};
        bad.values = torch::zeros({1, 8});
        const auto heldBefore = edge.heldCount();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, edge.accept(bad));
        bad.values = torch::zeros({2, 7});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, edge.accept(bad));
        bad.values = torch::zeros({2, 8}, torch::kDouble);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, edge.accept(bad));
        QCOMPARE(edge.heldCount(), heldBefore);
        QVERIFY(!edge.holds(200));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, HeldRows(torch::zeros({10, 8}), map));
    }

    void anEdgesCompactForwardIsTheModelsForward() {
        // The edge computes LangIdNet on the rows a batch needs; on real texts
        // its loss, gradients and scores equal the dense model's.
        const auto &corpus = smallCorpus();
        data::NgramOptions ngrams;
        ngrams.buckets = 1 << 16;
        const auto texts = encodeTexts(std::vector<data::TextSample>(corpus.train.begin(), corpus.train.begin() + 64),
                                       ngrams);
        const LangIdShape shape{1 << 16, 16, std::int64_t(corpus.classCount())};
        torch::manual_seed(2);
        LangIdNet dense(shape, /*sparse=*/true);
        const auto table = dense->embedding->weight.detach().clone();
        const auto classifier =
            torch::cat({dense->classifier->weight.detach(), dense->classifier->bias.detach().unsqueeze(1)}, 1);
        ShardPlan plan = twoShardPlan(shape.buckets);
        plan.shards.push_back({2, "classifier", 0, shape.classes, shape.classes * (shape.dim + 1)});
        const RowShardMap map(plan, "embedding");
        EmbeddingEdge edge(shape, map, /*classifierShard=*/2, /*shardCount=*/3, table, classifier);

        std::vector<std::size_t> which(32);
        for (std::size_t i = 0; i < which.size(); ++i)
            which[i] = 2 * i;
        const auto batch = makeBatch(texts, which);
        const auto expected = langIdGradients(*dense, batch);
        const auto got = edge.gradients(batch);
        QCOMPARE(got.loss, expected.loss);
        QVERIFY(torch::equal(got.rows, expected.rows));
        QVERIFY(torch::allclose(got.rowGrads, expected.rowGrads, 1e-5, 1e-7));
        QVERIFY(torch::allclose(got.classifierGrad, expected.classifierGrad, 1e-5, 1e-7));
        QCOMPARE(edge.held().heldCount(), std::size_t(expected.rows.numel()));
        QVERIFY(edge.heldShare() < 0.5);
        // Scores over all 64 texts (half of them never touched): the dense
        // model's logits, and no rows taken.
        {
            torch::NoGradGuard noGrad;
            dense->eval();
            const auto all = makeBatch(texts, [] {
                std::vector<std::size_t> every(64);
                for (std::size_t i = 0; i < every.size(); ++i)
                    every[i] = i;
                return every;
            }());
            QVERIFY(torch::allclose(edge.logits(all), dense->forward(all.indices, all.offsets), 1e-5, 1e-6));
        }
        const auto score = evaluateTexts([&edge](const TextBatch &b) { return edge.logits(b); }, texts,
                                         int(shape.classes));
        QCOMPARE(score.accuracy, evaluateLangId(*dense, texts, int(shape.classes)).accuracy);
        QCOMPARE(edge.held().heldCount(), std::size_t(expected.rows.numel()));
    }

    void changesFromAnotherRegionApplyOnceAndInOrder() {
        EmbeddingOwner owner(/*shard=*/0, /*region=*/0, /*regions=*/3, 0, torch::zeros({4, 1}));
        auto change = [](float v) {
            RowDelta d;
            d.rows = {1};
            d.versions = {0};
            d.values = torch::full({1, 1}, v);
            return d;
        };
        QCOMPARE(owner.receiveChange(1, 2, 2, change(10)).size(), std::size_t(0)); // early: waits
        QCOMPARE(owner.frontier()[1], std::uint64_t(0));
        const auto applied = owner.receiveChange(1, 1, 1, change(1)); // unblocks 2
        QCOMPARE(applied.size(), std::size_t(2));
        QCOMPARE(owner.frontier()[1], std::uint64_t(2));
        QCOMPARE(owner.rows().values()[1][0].item<float>(), 11.0f);
        QCOMPARE(owner.receiveChange(1, 2, 2, change(10)).size(), std::size_t(0)); // the center's copy
        QCOMPARE(owner.rows().values()[1][0].item<float>(), 11.0f);
        // A coalesced sum 2..3 overlapping what applied cannot be split: dropped, counted.
        QCOMPARE(owner.receiveChange(1, 2, 3, change(100)).size(), std::size_t(0));
        QCOMPARE(owner.overlapsDropped(), std::uint64_t(1));
        QCOMPARE(owner.rows().version(1), std::uint64_t(2));
        // Its own region's changes never come back in.
        QCOMPARE(owner.receiveChange(0, 1, 1, change(5)).size(), std::size_t(0));
    }

    void theCenterFillsWhatARegionLacksAndForgetsWhatAllApplied() {
        EmbeddingCenterLog center(/*shards=*/1, /*regions=*/2);
        RowDelta d;
        d.rows = {3};
        d.versions = {1};
        d.values = torch::ones({1, 2});
        // Region 0 reports its changes 1 and 2; region 1 has applied none of them.
        auto a = center.report(0, 0, {{1, d}, {2, d}}, {2, 0});
        QCOMPARE(a.acknowledged, std::uint64_t(2));
        QVERIFY(a.missing.empty());
        // The report comes again (its answer was lost): logged once.
        a = center.report(0, 0, {{1, d}, {2, d}}, {2, 0});
        QCOMPARE(center.held(0), std::size_t(2));
        // Region 1 has applied change 1 by the hot path: it gets 2 only.
        a = center.report(1, 0, {}, {1, 0});
        QCOMPARE(a.missing.size(), std::size_t(1));
        QCOMPARE(a.missing.front().seq, std::uint64_t(2));
        QCOMPARE(a.missing.front().origin, 0);
        QCOMPARE(center.held(0), std::size_t(1)); // change 1 is applied everywhere: forgotten
        a = center.report(1, 0, {}, {2, 0});
        QVERIFY(a.missing.empty());
        QCOMPARE(center.held(0), std::size_t(0));
    }

    void theLagBoundHoldsOnALossyNetwork() {
        auto config = loadClusterConfig(testData("tiny_cluster.json"));
        config.intraRegion.lossRate = 0.05;
        auto o = smallScenario();
        o.lagBound = 1;
        const auto r = runHotUpdateScenario(config, smallCorpus(), o);
        const std::string stats = "lost " + std::to_string(r.publishesLost) + ", catch-ups " +
                                  std::to_string(r.catchUps) + ", deferred " + std::to_string(r.stepsDeferred) +
                                  ", steps " + std::to_string(r.steps);
        QVERIFY2(r.publishesLost > 50, stats.c_str());
        QVERIFY(r.catchUps > 0);
        QVERIFY(r.stepsDeferred > 0);
        QCOMPARE(r.lagViolations, std::uint64_t(0));
        QVERIFY(r.maxLagSeen <= 1);
        // Every edge kept training: a lost catch-up is asked again, not waited for forever.
        QVERIFY2(r.steps > 6 * 20, stats.c_str()); // 6 edges, 30 steps each if never deferred
    }

    void theAuditCatchesABrokenLagGuard() {
        auto config = loadClusterConfig(testData("tiny_cluster.json"));
        config.intraRegion.lossRate = 0.05;
        auto o = smallScenario();
        o.lagBound = 1;
        o.breakLagGuard = true; // edges train on whatever they have
        const auto r = runHotUpdateScenario(config, smallCorpus(), o);
        QCOMPARE(r.catchUps, std::uint64_t(0));
        QVERIFY2(r.lagViolations > 0, "the audit must see rows used past the bound");
        QVERIFY(r.maxLagSeen > 1);
    }

    void hotUpdatesReachEveryEdgeBeforeTheCenterSync() {
        SYNAPTIC_SKIP_UNDER_SANITIZERS(); // see docs/RELIABILITY.md, "Sanitizers"
        const auto config = loadClusterConfig(testData("tiny_cluster.json"));
        auto o = smallScenario();
        o.centerSyncWindows = 16; // 0.8 s
        o.duration = 2.5;         // rows first updated by 0.9 s count
        const auto hot = runHotUpdateScenario(config, smallCorpus(), o);
        o.hotUpdates = false;
        const auto cold = runHotUpdateScenario(config, smallCorpus(), o);
        QVERIFY(hot.rowsTracked > 0 && cold.rowsTracked > 0);
        QVERIFY2(hot.presenceP99 < 0.3, std::to_string(hot.presenceP99).c_str());
        QVERIFY2(cold.presenceP50 > hot.presenceP99, std::to_string(cold.presenceP50).c_str());
        QVERIFY(hot.ownerToOwnerBytes > 0);
        QCOMPARE(cold.ownerToOwnerBytes, std::uint64_t(0));
        // Small shards of a small table: a window touches much of one, yet less than all.
        QVERIFY(hot.sparseEmbeddingBytes < hot.wholeShardEmbeddingBytes);
        QVERIFY(hot.heldShareMean > 0 && hot.heldShareMean < 1);
    }

    void theModelLearnsLanguagesAndBeatsChance() {
        const auto &corpus = smallCorpus();
        data::NgramOptions ngrams;
        ngrams.buckets = 1 << 14;
        const auto train = encodeTexts(corpus.train, ngrams);
        const auto test = encodeTexts(corpus.test, ngrams);
        torch::manual_seed(1);
        LangIdNet model(LangIdShape{ngrams.buckets, 16, 4});
        const double before = evaluateLangId(*model, test, 4).accuracy;
        LangIdTrainOptions options;
        options.epochs = 3;
        trainLangId(*model, train, options);
        const auto after = evaluateLangId(*model, test, 4);
        QVERIFY2(after.accuracy > 0.9, std::to_string(after.accuracy).c_str());
        QVERIFY(after.accuracy > before + 0.3);
        TrigramBaseline baseline(4);
        baseline.train(corpus.train);
        const auto base = scorePredictions(baseline.predict(corpus.test), test.labels, 4);
        QVERIFY2(base.accuracy > 0.8, std::to_string(base.accuracy).c_str());
        // The table's gradient is sparse: only the batch's rows.
        const auto g = langIdGradients(*model, makeBatch(train, {0, 1}));
        QVERIFY(g.rows.numel() > 0 && g.rows.numel() <= std::int64_t(train.grams[0].size() + train.grams[1].size()));
        QCOMPARE(g.rowGrads.size(1), std::int64_t(16));
    }

    void theLayoutShardsTheTableByRows() {
        LangIdNet model(LangIdShape{1 << 12, 8, 12});
        const auto layers = layoutOf(*model);
        QCOMPARE(layers.size(), std::size_t(2));
        QCOMPARE(layers[0].kind, LayerLayout::Kind::Embedding);
        QCOMPARE(layers[0].rows, std::int64_t(1 << 12));
        QCOMPARE(layers[0].paramsPerRow, std::int64_t(8));
        QCOMPARE(layers[1].kind, LayerLayout::Kind::Linear);
        QCOMPARE(layers[1].paramsPerRow, std::int64_t(9));
    }

    void theRegistryKnowsBothTasks() {
        const auto &r = TaskRegistry::builtIn();
        QCOMPARE(r.names(), (std::vector<std::string>{"fashion-mnist", "langid"}));
        QCOMPARE(r.names(), kTasks); // what a config's "task" key accepts: the same names
        QCOMPARE(r.find("langid").layout.front().kind, LayerLayout::Kind::Embedding);
        QVERIFY_THROWS_EXCEPTION(ConfigError, r.find("imagenet"));
    }

    void theRegistryRefusesALayoutThatDoesNotMatchItsModel() {
        TaskRegistry r;
        auto spec = TaskRegistry::builtIn().find("langid");
        spec.layout[0].rows = 1 << 20; // the model has 2^16 rows
        try {
            r.add(spec);
            QFAIL("a wrong layout must be refused");
        } catch (const ConfigError &e) {
            const std::string what = e.what();
            QVERIFY2(what.find("task 'langid'") != std::string::npos && what.find("1048576") != std::string::npos &&
                         what.find("65536") != std::string::npos,
                     e.what());
        }
        auto missing = TaskRegistry::builtIn().find("fashion-mnist");
        missing.layout.pop_back(); // the exit head is not declared
        QVERIFY_THROWS_EXCEPTION(ConfigError, r.add(missing));
        auto ok = TaskRegistry::builtIn().find("langid");
        r.add(ok);
        QVERIFY_THROWS_EXCEPTION(ConfigError, r.add(ok)); // twice
    }
};

QTEST_GUILESS_MAIN(TestEmbeddings)
#include "tst_embeddings.moc"
