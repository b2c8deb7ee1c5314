// Partitioners: every sample lands in exactly one part, the split is
// deterministic for a seed, IID parts mirror the global label mix and
// Dirichlet parts are skewed in proportion to 1/alpha.
#include "core/data/fashion_mnist.h"
#include "core/data/partition.h"

#include <QTest>

#include <numeric>

using namespace synaptic::data;

namespace {

// Mean over parts of the largest single-label share of the part.
double meanDominantShare(const std::vector<std::uint8_t> &labels, const Partition &parts) {
    double sum = 0;
    int counted = 0;
    for (const auto &part : parts) {
        if (part.empty())
            continue;
        const auto h = labelHistogram(labels, part);
        sum += double(*std::max_element(h.begin(), h.end())) / double(part.size());
        ++counted;
    }
    return sum / counted;
}

void verifyExactCover(const Partition &parts, std::size_t n) {
    std::vector<int> seen(n, 0);
    for (const auto &part : parts)
        for (auto i : part) {
            QVERIFY(i < n);
            ++seen[i];
        }
    QVERIFY2(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }),
             "every sample must be in exactly one part");
}

} // namespace

class TestPartition : public QObject {
    Q_OBJECT
    std::vector<std::uint8_t> m_labels;

private Q_SLOTS:
    void initTestCase() { m_labels = loadFashionMnist(resolveDataDir(""), Split::Train).labels; }

    void iid_data() {
        QTest::addColumn<int>("parts");
        QTest::newRow("1 part") << 1;
        QTest::newRow("3 regions") << 3;
        QTest::newRow("12 edges") << 12;
        QTest::newRow("64 edges") << 64;
    }
    void iid() {
        QFETCH(int, parts);
        const auto p = partitionIid(m_labels.size(), std::size_t(parts), 7);
        QCOMPARE(p.size(), std::size_t(parts));
        verifyExactCover(p, m_labels.size());
        const auto [mn, mx] = std::minmax_element(p.begin(), p.end(),
                                                  [](auto &a, auto &b) { return a.size() < b.size(); });
        QVERIFY(mx->size() - mn->size() <= 1);
        // Each class is 10 % of the data; an IID part of >= 900 samples stays
        // within 4 percentage points of that for every class.
        for (const auto &part : p) {
            const auto h = labelHistogram(m_labels, part);
            for (auto c : h)
                QVERIFY2(std::abs(double(c) / double(part.size()) - 0.1) < 0.04,
                         qPrintable(QString("class share %1").arg(double(c) / double(part.size()))));
        }
    }

    void iidDeterministic() {
        QCOMPARE(partitionIid(1000, 4, 42), partitionIid(1000, 4, 42));
        QVERIFY(partitionIid(1000, 4, 42) != partitionIid(1000, 4, 43));
    }

    void dirichletSkew_data() {
        QTest::addColumn<double>("alpha");
        QTest::addColumn<double>("minShare");
        QTest::addColumn<double>("maxShare");
        // IID would give 0.1; alpha 0.1 concentrates parts on one or two labels.
        QTest::newRow("alpha 0.1 (very skewed)") << 0.1 << 0.45 << 1.0;
        QTest::newRow("alpha 1") << 1.0 << 0.2 << 0.6;
        QTest::newRow("alpha 1000 (near IID)") << 1000.0 << 0.1 << 0.13;
    }
    void dirichletSkew() {
        QFETCH(double, alpha);
        QFETCH(double, minShare);
        QFETCH(double, maxShare);
        const auto p = partitionDirichlet(m_labels, 12, alpha, 3);
        verifyExactCover(p, m_labels.size());
        const double share = meanDominantShare(m_labels, p);
        QVERIFY2(share >= minShare && share <= maxShare, qPrintable(QString("dominant share %1").arg(share)));
    }

    void dirichletMonotoneInAlpha() {
        const double skewed = meanDominantShare(m_labels, partitionDirichlet(m_labels, 3, 0.3, 5));
        const double mild = meanDominantShare(m_labels, partitionDirichlet(m_labels, 3, 10.0, 5));
        QVERIFY2(skewed > mild + 0.05, qPrintable(QString("%1 vs %2").arg(skewed).arg(mild)));
    }

    void dirichletTinyAlphaDoesNotUnderflow() {
        // Gamma draws with alpha 1e-4 underflow to 0; each class must still
        // land somewhere, as a whole (the alpha -> 0 limit).
        const auto p = partitionDirichlet(m_labels, 4, 1e-4, 11);
        verifyExactCover(p, m_labels.size());
        QVERIFY(meanDominantShare(m_labels, p) > 0.3);
    }

    void dirichletDeterministic() {
        QCOMPARE(partitionDirichlet(m_labels, 3, 0.5, 9), partitionDirichlet(m_labels, 3, 0.5, 9));
        QVERIFY(partitionDirichlet(m_labels, 3, 0.5, 9) != partitionDirichlet(m_labels, 3, 0.5, 10));
    }

    void badArguments() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, partitionIid(10, 0, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, partitionDirichlet(m_labels, 0, 1.0, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, partitionDirichlet(m_labels, 3, 0.0, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, partitionDirichlet(m_labels, 3, -1.0, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, partitionDirichlet({1, 2, 11}, 3, 1.0, 1));
    }
};

QTEST_APPLESS_MAIN(TestPartition)
#include "tst_partition.moc"
