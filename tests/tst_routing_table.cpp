// The synapse routing table: versions never go backwards, snapshots are
// immutable views that readers on other threads can hold, lag is computed
// against each edge's own region owner, and bad indices are refused.
#include "core/engine/synapse/routing_table.h"

#include <QTest>

#include <atomic>
#include <thread>

using namespace synaptic::engine;

namespace {
// A two-layer toy model: 100 rows x 10 params and 20 rows x 50 params.
std::vector<LayerLayout> toyLayers() {
    return {{"fc_a", LayerLayout::Kind::Linear, 100, 10, {}}, {"fc_b", LayerLayout::Kind::Linear, 20, 50, {}}};
}
const PlanTopology kTopo{{3, 2}}; // region 0: edges 0..2, region 1: edges 3..4
} // namespace

class TestRoutingTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void buildsFromPlan() {
        const ShardPlan plan = planShards(toyLayers(), kTopo);
        RoutingTable table(plan, kTopo);
        const auto snap = table.snapshot();
        QCOMPARE(snap->rows.size(), plan.shards.size());
        QCOMPARE(snap->regionOfEdge, (std::vector<int>{0, 0, 0, 1, 1}));
        for (const auto &row : snap->rows) {
            QCOMPARE(row->owner.size(), std::size_t(2));
            QCOMPARE(row->owner[0], plan.owner[0][std::size_t(row->shard.id)]);
            QCOMPARE(row->cachedVersion.size(), std::size_t(5));
            QCOMPARE(row->versionLag(snap->regionOfEdge), std::uint64_t(0));
        }
    }

    void versionsNeverGoBackwards_data() {
        QTest::addColumn<QString>("which");
        QTest::newRow("owner") << "owner";
        QTest::newRow("center") << "center";
        QTest::newRow("cached") << "cached";
    }
    void versionsNeverGoBackwards() {
        QFETCH(QString, which);
        RoutingTable table(planShards(toyLayers(), kTopo), kTopo);
        auto set = [&](std::uint64_t v) {
            if (which == "owner") table.setOwnerVersion(0, 1, v, 1.5);
            else if (which == "center") table.setCenterVersion(0, v);
            else table.setCachedVersion(0, 4, v);
        };
        set(5);
        set(5); // equal is fine (idempotent re-delivery)
        set(7);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, set(6));
        const auto row = table.snapshot()->rows[0];
        const std::uint64_t now = which == "owner" ? row->ownerVersion[1]
                                  : which == "center" ? row->centerVersion
                                                      : row->cachedVersion[4];
        QCOMPARE(now, std::uint64_t(7)); // the refused update changed nothing
    }

    void snapshotsAreImmutable() {
        RoutingTable table(planShards(toyLayers(), kTopo), kTopo);
        const auto before = table.snapshot();
        QCOMPARE(table.snapshot(), before); // no change: the same snapshot
        table.setOwnerVersion(1, 0, 3, 2.0);
        const auto after = table.snapshot();
        QVERIFY(after != before);
        QCOMPARE(before->rows[1]->ownerVersion[0], std::uint64_t(0));
        QCOMPARE(after->rows[1]->ownerVersion[0], std::uint64_t(3));
        QCOMPARE(after->rows[1]->lastSync[0], 2.0);
        QCOMPARE(after->revision, before->revision + 1);
        // Untouched rows are shared, not copied.
        QCOMPARE(after->rows[0].get(), before->rows[0].get());
    }

    void lagAgainstOwnRegion() {
        RoutingTable table(planShards(toyLayers(), kTopo), kTopo);
        table.setOwnerVersion(0, 0, 10, 1.0); // region 0 owner at v10
        table.setOwnerVersion(0, 1, 4, 1.0);  // region 1 owner at v4
        for (int e = 0; e < 3; ++e)
            table.setCachedVersion(0, e, 10);
        table.setCachedVersion(0, 3, 4);
        table.setCachedVersion(0, 4, 1); // 3 behind its own region's owner
        const auto snap = table.snapshot();
        QCOMPARE(snap->rows[0]->versionLag(snap->regionOfEdge), std::uint64_t(3));
        QCOMPARE(snap->rows[0]->minCachedVersion(), std::uint64_t(1));
    }

    void moveOwnerWithinRegionOnly() {
        RoutingTable table(planShards(toyLayers(), kTopo), kTopo);
        table.setOwner(2, 1, 4);
        QCOMPARE(table.snapshot()->rows[2]->owner[1], 4);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, table.setOwner(2, 1, 0)); // edge 0 is in region 0
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, table.setOwner(2, 2, 0)); // no region 2
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, table.setOwner(99, 0, 0)); // no shard 99
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, table.setCachedVersion(0, 5, 1)); // no edge 5
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, table.setParameterDrift(0, -1.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, table.setParameterDrift(0, std::nan("")));
        QCOMPARE(table.snapshot()->rows[2]->owner[1], 4);
    }

    void concurrentReaderSeesWholeRows() {
        // A reader thread takes snapshots while the writer bumps versions
        // owner-first then cache: a row may never show a cache ahead of its owner.
        RoutingTable table(planShards(toyLayers(), kTopo), kTopo);
        std::atomic<bool> done{false};
        std::atomic<long> checked{0};
        std::atomic<bool> torn{false};
        std::thread reader([&] {
            do {
                const auto snap = table.snapshot();
                for (const auto &row : snap->rows)
                    if (row->cachedVersion[0] > row->ownerVersion[0])
                        torn = true;
                ++checked;
            } while (!done);
        });
        // Start writing only once the reader runs: on a loaded machine the
        // writer could otherwise finish before the reader's first snapshot.
        while (checked == 0)
            std::this_thread::yield();
        for (std::uint64_t v = 1; v <= 2000; ++v) {
            table.setOwnerVersion(0, 0, v, double(v));
            table.setCachedVersion(0, 0, v);
        }
        done = true;
        reader.join();
        QVERIFY(!torn);
        QVERIFY(checked > 0);
        QCOMPARE(table.snapshot()->rows[0]->cachedVersion[0], std::uint64_t(2000));
    }
};

QTEST_APPLESS_MAIN(TestRoutingTable)
#include "tst_routing_table.moc"
