// The routing table model over real routing-table snapshots: structure
// checked by QAbstractItemModelTester, one dataChanged per changed row,
// drift and version-lag highlighting and their counts, numeric sorting
// through the sort role.
#include "core/engine/model.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/synapse/routing_table.h"
#include "ui/models/routing_table_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace synaptic;
using synaptic::ui::RoutingTableModel;

class TestRoutingTableModel : public QObject {
    Q_OBJECT
    engine::PlanTopology m_topology{{2, 2}};
    engine::ShardPlan m_plan;

private Q_SLOTS:
    void initTestCase() {
        engine::SynapticNet net;
        m_plan = engine::planShards(engine::layoutOf(*net), m_topology);
    }

    void rowsAndColumns() {
        engine::RoutingTable table(m_plan, m_topology);
        RoutingTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNames({"eu-0", "eu-1", "us-0", "us-1"}, {"eu", "us"});
        model.setSnapshot(table.snapshot());
        QCOMPARE(model.rowCount(), int(m_plan.shards.size()));
        QCOMPARE(model.columnCount(), int(RoutingTableModel::ColumnCount));
        const auto &s0 = m_plan.shards[0];
        QCOMPARE(model.data(model.index(0, RoutingTableModel::Layer), Qt::DisplayRole).toString(),
                 QString::fromStdString(s0.layer));
        QCOMPARE(model.data(model.index(0, RoutingTableModel::Parameters), RoutingTableModel::SortRole).toLongLong(),
                 qlonglong(s0.parameters));
        const QString owners = model.data(model.index(0, RoutingTableModel::Owners), Qt::DisplayRole).toString();
        QCOMPARE(owners, QString("%1, %2").arg(QStringList{"eu-0", "eu-1", "us-0", "us-1"}[m_plan.owner[0][0]],
                                               QStringList{"eu-0", "eu-1", "us-0", "us-1"}[m_plan.owner[1][0]]));
    }

    void onlyChangedRowsAreSignalled() {
        engine::RoutingTable table(m_plan, m_topology);
        RoutingTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(table.snapshot());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        table.setOwnerVersion(5, 0, 3, 1.5);
        table.setOwnerVersion(6, 1, 1, 1.5);
        table.setCenterVersion(9, 2);
        model.setSnapshot(table.snapshot());
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 2); // rows 5-6 as one run, row 9 alone
        QCOMPARE(changed[0][0].toModelIndex().row(), 5);
        QCOMPARE(changed[0][1].toModelIndex().row(), 6);
        QCOMPARE(changed[1][0].toModelIndex().row(), 9);
        QCOMPARE(model.data(model.index(5, RoutingTableModel::OwnerVersion), RoutingTableModel::SortRole).toULongLong(),
                 3ull);
        QCOMPARE(model.data(model.index(5, RoutingTableModel::LastSync), Qt::DisplayRole).toString(), QString("1.50"));
        model.setSnapshot(table.snapshot()); // nothing new: no signal
        QCOMPARE(changed.count(), 2);
    }

    void driftPastThresholdIsHighlighted() {
        engine::RoutingTable table(m_plan, m_topology);
        table.setParameterDrift(3, 0.9);
        table.setParameterDrift(4, 0.1);
        RoutingTableModel model;
        model.setSnapshot(table.snapshot());
        model.setDriftThreshold(0.5);
        QVERIFY(model.data(model.index(3, 0), Qt::BackgroundRole).isValid());
        QVERIFY(model.data(model.index(3, 0), Qt::ToolTipRole).toString().contains("0.900"));
        QVERIFY(!model.data(model.index(4, 0), Qt::BackgroundRole).isValid());
        model.setDriftThreshold(0.05);
        QVERIFY(model.data(model.index(4, 0), Qt::BackgroundRole).isValid());
    }

    // Issue 18 §4: the lag threshold highlights rows where some edge is
    // more versions behind its owner than it; the counts follow the
    // thresholds and the changed rows of each snapshot.
    void lagPastThresholdIsHighlightedAndCounted() {
        engine::RoutingTable table(m_plan, m_topology);
        table.setParameterDrift(3, 0.9);
        table.setOwnerVersion(2, 1, 9, 1.0);
        table.setCachedVersion(2, 2, 8); // us-0 one behind, us-1 nine behind
        RoutingTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy highlights(&model, &RoutingTableModel::highlightsChanged);
        model.setSnapshot(table.snapshot());
        auto flags = [&](int row) { return model.index(row, 0).data(RoutingTableModel::HighlightRole).toInt(); };
        QCOMPARE(model.lagThreshold(), -1); // none until an operator sets one
        QCOMPARE(flags(2), 0);
        QCOMPARE(flags(3), int(RoutingTableModel::PastDrift));
        QCOMPARE(model.rowsPastDrift(), 1);
        QCOMPARE(model.rowsPastLag(), 0);
        QCOMPARE(highlights.count(), 1);

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setLagThreshold(4);
        QCOMPARE(changed.count(), 1);
        QVERIFY(changed[0][2].value<QList<int>>().contains(Qt::BackgroundRole));
        QCOMPARE(highlights.count(), 2);
        QCOMPARE(flags(2), int(RoutingTableModel::PastLag));
        QCOMPARE(model.rowsPastLag(), 1);
        const QVariant lagBrush = model.index(2, 0).data(Qt::BackgroundRole);
        QVERIFY(lagBrush.isValid());
        QVERIFY(lagBrush != model.index(3, 0).data(Qt::BackgroundRole)); // lag and drift look different
        const QString tip = model.index(2, RoutingTableModel::Layer).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("version lag 9 is above the lag threshold 4"), qPrintable(tip));
        QVERIFY(model.headerData(RoutingTableModel::VersionLag, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains("more than 4 versions"));
        QVERIFY(model.headerData(RoutingTableModel::Drift, Qt::Horizontal, Qt::ToolTipRole).toString().contains("0.5"));
        model.setLagThreshold(9); // "past" is strictly more than the threshold
        QCOMPARE(flags(2), 0);
        QCOMPARE(model.rowsPastLag(), 0);
        model.setLagThreshold(0);
        QCOMPARE(model.rowsPastLag(), 1); // the only row any edge lags on

        // A snapshot changes the counts through the rows it changed.
        highlights.clear();
        table.setOwnerVersion(5, 0, 7, 2.0); // eu's edges 7 behind on shard 5
        table.setCachedVersion(2, 3, 9);     // us-1 catches up: us-0 still one behind
        table.setParameterDrift(3, 0.2);
        model.setSnapshot(table.snapshot());
        QCOMPARE(highlights.count(), 1);
        QCOMPARE(model.rowsPastDrift(), 0);
        QCOMPARE(model.rowsPastLag(), 2);
        model.setLagThreshold(1);
        QCOMPARE(flags(2), 0);
        QCOMPARE(flags(5), int(RoutingTableModel::PastLag));
        QCOMPARE(model.rowsPastLag(), 1);
        model.setSnapshot(table.snapshot()); // nothing new: no signal
        QCOMPARE(highlights.count(), 2);
        model.setDriftThreshold(0.1);
        QCOMPARE(flags(3), int(RoutingTableModel::PastDrift));
        QCOMPARE(model.rowsPastDrift(), 1);
    }

    void rowsHeldAndTheEdgeFurthestBehind() {
        engine::RoutingTable table(m_plan, m_topology);
        RoutingTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNames({"eu-0", "eu-1", "us-0", "us-1"}, {"eu", "us"});
        table.setOwnerVersion(2, 1, 9, 1.0);
        table.setCachedVersion(2, 2, 8); // us-0 one behind, us-1 nine behind
        model.setSnapshot(table.snapshot());
        const QString tip = model.index(2, RoutingTableModel::VersionLag).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("us-1, 9 versions behind"), qPrintable(tip));
        QVERIFY(model.index(0, RoutingTableModel::VersionLag).data(Qt::ToolTipRole).toString().contains("every edge"));

        // Without held shares every shard reads "all"; with them, a partly held shard its mean and minimum.
        QCOMPARE(model.index(1, RoutingTableModel::RowsHeld).data().toString(), QString("all"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        auto held = std::make_shared<synaptic::ui::HeldShares>(m_plan.shards.size());
        (*held)[1] = {0.5f, 0.25f, 1.0f, 0.25f};
        model.setHeldShares(held);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed[0][0].toModelIndex().column(), int(RoutingTableModel::RowsHeld));
        QCOMPARE(model.index(1, RoutingTableModel::RowsHeld).data().toString(), QString("mean 50.0 %, min 25.0 %"));
        QCOMPARE(model.index(1, RoutingTableModel::RowsHeld).data(RoutingTableModel::SortRole).toDouble(), 0.5);
        QVERIFY(model.index(1, RoutingTableModel::RowsHeld).data(Qt::ToolTipRole).toString().contains("us-0: 100.0 %"));
        QCOMPARE(model.index(0, RoutingTableModel::RowsHeld).data().toString(), QString("all"));
    }

    void sortsNumerically() {
        engine::RoutingTable table(m_plan, m_topology);
        RoutingTableModel model;
        model.setSnapshot(table.snapshot());
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(RoutingTableModel::SortRole);
        proxy.sort(RoutingTableModel::Parameters, Qt::DescendingOrder);
        for (int r = 1; r < proxy.rowCount(); ++r)
            QVERIFY(proxy.index(r - 1, RoutingTableModel::Parameters).data(RoutingTableModel::SortRole).toLongLong() >=
                    proxy.index(r, RoutingTableModel::Parameters).data(RoutingTableModel::SortRole).toLongLong());
        proxy.setFilterKeyColumn(RoutingTableModel::Layer);
        proxy.setFilterFixedString("conv1");
        QVERIFY(proxy.rowCount() > 0 && proxy.rowCount() < model.rowCount());
    }
};

QTEST_GUILESS_MAIN(TestRoutingTableModel)
#include "tst_routing_table_model.moc"
