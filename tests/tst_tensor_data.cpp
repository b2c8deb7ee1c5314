// TensorSet's two shapes (tensor_data.h): dense image rows and ragged texts
// (every sample's embedding rows concatenated, with offsets). Slicing and
// selecting by sample, and the refusals that keep the raw-pointer reads of
// the offsets in bounds. Fast and data-free, so it also runs under ASan.
#include "core/engine/tensor_data.h"
#include "int64_values.h"

#include <torch/types.h>

#include <QTest>

#include <stdexcept>
#include <vector>

using namespace synaptic::engine;

namespace {

// Three texts of 2, 0 and 3 rows.
TensorSet threeTexts() {
    TensorSet s;
    s.inputs = torch::tensor({10, 11, 30, 31, 32}, torch::kInt64);
    s.offsets = torch::tensor({0, 2, 2, 5}, torch::kInt64);
    s.labels = torch::tensor({0, 1, 2}, torch::kInt64);
    return s;
}


} // namespace

class TestTensorData : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void raggedSetsSliceBySample() {
        const TensorSet s = threeTexts();
        const TensorSet tail = sliceSamples(s, 1, 3);
        QCOMPARE(tail.size(), std::int64_t(2));
        QCOMPARE(int64Values(tail.inputs), (std::vector<std::int64_t>{30, 31, 32}));
        QCOMPARE(int64Values(tail.offsets), (std::vector<std::int64_t>{0, 0, 3})); // rebased
        QCOMPARE(int64Values(tail.labels), (std::vector<std::int64_t>{1, 2}));
        QCOMPARE(sliceSamples(s, 1, 1).size(), std::int64_t(0));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, sliceSamples(s, 2, 4));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, sliceSamples(s, 2, 1));
    }

    void raggedSetsSelectBySampleInOrder() {
        const TensorSet s = threeTexts();
        const TensorSet picked = selectSamples(s, torch::tensor({2, 0, 1, 2}, torch::kInt64));
        QCOMPARE(int64Values(picked.inputs), (std::vector<std::int64_t>{30, 31, 32, 10, 11, 30, 31, 32}));
        QCOMPARE(int64Values(picked.offsets), (std::vector<std::int64_t>{0, 3, 5, 5, 8}));
        QCOMPARE(int64Values(picked.labels), (std::vector<std::int64_t>{2, 0, 1, 2}));
    }

    void aSampleOutsideTheSetIsRefusedByNumber() {
        const TensorSet s = threeTexts();
        for (std::int64_t bad : {3, -1}) {
            try {
                selectSamples(s, torch::tensor(std::vector<std::int64_t>{0, bad}));
                QFAIL("an index outside the set must be refused");
            } catch (const std::out_of_range &e) {
                const std::string what = e.what();
                QVERIFY2(what.find("sample " + std::to_string(bad) + " of a set of 3") != std::string::npos, e.what());
            }
        }
    }

    void offsetsOfTheWrongShapeAreRefused() {
        TensorSet s = threeTexts();
        s.offsets = torch::tensor({0, 2, 5}, torch::kInt64); // one short
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sliceSamples(s, 0, 1));
        s = threeTexts();
        s.offsets = s.offsets.to(torch::kInt32);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, selectSamples(s, torch::tensor({0}, torch::kInt64)));
    }

    void denseSetsSelectRows() {
        TensorSet dense{torch::arange(6, torch::kFloat32).view({3, 2}), torch::tensor({0, 1, 2}, torch::kInt64), {}};
        QVERIFY(!dense.ragged());
        const TensorSet one = selectSamples(dense, torch::tensor({1}, torch::kInt64));
        QCOMPARE(one.inputs.sum().item<float>(), 5.f);
        QCOMPARE(int64Values(one.labels), (std::vector<std::int64_t>{1}));
        QCOMPARE(sliceSamples(dense, 1, 3).inputs.size(0), std::int64_t(2));
    }
};

QTEST_GUILESS_MAIN(TestTensorData)
#include "tst_tensor_data.moc"
