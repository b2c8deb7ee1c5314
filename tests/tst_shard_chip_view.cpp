// The shard map's chips (issue 18 §2) on the real model fed real routing
// snapshots: widths proportional to parameter counts within a pixel (in the
// layout and in the pixels painted), selection and a drop onto another
// edge's row sending the model's move commands, and in-flight moves marked
// until the engine reports them.
#include "core/engine/model.h"
#include "core/engine/synapse/model_layout.h"
#include "core/engine/synapse/routing_table.h"
#include "ui/models/shard_map_model.h"
#include "ui/views/shard_chip_view.h"

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>

using namespace synaptic;
using synaptic::ui::ShardChipLayout;
using synaptic::ui::ShardChipView;
using synaptic::ui::ShardMapModel;

Q_DECLARE_METATYPE(synaptic::engine::SimCommand)

class TestShardChipView : public QObject {
    Q_OBJECT
    engine::PlanTopology m_topology;
    engine::ShardPlan m_plan;
    std::unique_ptr<engine::RoutingTable> m_table;
    std::unique_ptr<ShardMapModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    std::unique_ptr<ShardChipView> m_view;

    // A cluster of `regions` × `perRegion` edges owning the real model's shards.
    void build(int regions, int perRegion, int width) {
        m_view.reset();
        m_topology = engine::PlanTopology{std::vector<int>(std::size_t(regions), perRegion)};
        engine::SynapticNet net;
        m_plan = engine::planShards(engine::layoutOf(*net), m_topology);
        m_table = std::make_unique<engine::RoutingTable>(m_plan, m_topology);
        m_model = std::make_unique<ShardMapModel>();
        m_tester = std::make_unique<QAbstractItemModelTester>(m_model.get(),
                                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
        QStringList names, regionNames;
        QVector<int> regionOf;
        for (int r = 0; r < regions; ++r) {
            regionNames << QStringLiteral("r%1").arg(r);
            for (int e = 0; e < perRegion; ++e) {
                names << QStringLiteral("r%1-%2").arg(r).arg(e);
                regionOf << r;
            }
        }
        m_model->setTopology(names, regionOf, regionNames);
        m_model->setShareBounds(0.05, 0.15, ShardMapModel::OnBound::Allow);
        m_model->setSnapshot(m_table->snapshot());
        for (int e = 0; e < names.size(); ++e)
            m_model->setEdgeMode(e, "training");
        m_view = std::make_unique<ShardChipView>();
        m_view->setModel(m_model.get());
        m_view->resize(width, 500);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    }

    QPoint chipCentre(int edge, int row) { return m_view->chipRects(edge, row).value(0).center(); }
    QPoint nameOf(int edge) { return m_view->edgeRect(edge).topLeft() + QPoint(8, 8); }

    // A drop of `mime` onto `edge`'s row, as the drag would deliver it.
    void dropOn(int edge, const QMimeData *mime) {
        const QPoint at = nameOf(edge);
        QDragEnterEvent enter(at, Qt::MoveAction, mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_view->viewport(), &enter);
        QDragMoveEvent move(at, Qt::MoveAction, mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_view->viewport(), &move);
        QVERIFY(move.isAccepted());
        QDropEvent drop(QPointF(at), Qt::MoveAction, mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_view->viewport(), &drop);
    }

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<engine::SimCommand>(); }

    void chipWidthsAreProportionalToParameters_data() {
        QTest::addColumn<int>("regions");
        QTest::addColumn<int>("perRegion");
        QTest::addColumn<int>("width");
        QTest::newRow("2 x 2, wide") << 2 << 2 << 1200;
        QTest::newRow("2 x 2, narrow") << 2 << 2 << 420;
        QTest::newRow("3 x 8 (the default)") << 3 << 8 << 440;
        QTest::newRow("8 x 8, folded") << 8 << 8 << 360;
    }
    void chipWidthsAreProportionalToParameters() {
        QFETCH(int, regions);
        QFETCH(int, perRegion);
        QFETCH(int, width);
        build(regions, perRegion, width);
        const ShardChipLayout &layout = m_view->chipLayout();
        const double scale = layout.pixelsPerParameter();
        QVERIFY(scale > 0);
        qint64 widest = 0;
        for (int e = 0; e < m_model->rowCount(); ++e) {
            const QModelIndex edge = m_model->edgeIndex(e);
            QCOMPARE(layout.chipCount(e), m_model->rowCount(edge));
            widest = std::max(widest, layout.edgeParameters(e));
            for (int r = 0; r < layout.chipCount(e); ++r) {
                const qint64 parameters = m_model->index(r, 0, edge).data(ShardMapModel::ParametersRole).toLongLong();
                const double exact = double(parameters) * scale;
                QVERIFY2(std::abs(layout.chipWidth(e, r) - exact) < 1.0,
                         qPrintable(QString("edge %1 chip %2: %3 px for %4 parameters (%5 px exact)")
                                        .arg(e).arg(r).arg(layout.chipWidth(e, r)).arg(parameters).arg(exact)));
                // Folded over lines or not, the pieces drawn add up to the width.
                int drawn = 0;
                for (const QRect &piece : m_view->chipRects(e, r))
                    drawn += piece.width();
                if (layout.chipWidth(e, r) > 0)
                    QCOMPARE(drawn, layout.chipWidth(e, r));
            }
        }
        // The edge owning the most fills its lines exactly: the scale is as large as fits.
        QCOMPARE(qRound(double(widest) * scale), layout.lines() * layout.laneWidth());
        // Nine chips in ten are at least the minimum, unless that would take more than kMaxLines.
        if (layout.lines() < ShardChipLayout::kMaxLines) {
            int thin = 0, all = 0;
            for (int e = 0; e < layout.edgeCount(); ++e)
                for (int r = 0; r < layout.chipCount(e); ++r, ++all)
                    thin += layout.chipWidth(e, r) < ShardChipLayout::kMinChipPx;
            QVERIFY2(thin * 10 <= all + 10, qPrintable(QString("%1 of %2 chips thinner than the minimum").arg(thin).arg(all)));
        }
    }

    // What reaches the screen: a chip's columns carry its layer's colour from
    // its first pixel to its last, and the next chip starts right after.
    void paintedChipsHaveTheirWidth() {
        build(2, 2, 900);
        const QImage image = m_view->viewport()->grab().toImage();
        const ShardChipLayout &layout = m_view->chipLayout();
        int checked = 0;
        for (int e = 0; e < layout.edgeCount(); ++e)
            for (int r = 0; r + 1 < layout.chipCount(e); ++r) {
                const auto pieces = m_view->chipRects(e, r);
                if (pieces.size() != 1 || pieces[0].width() < 6 || layout.chipWidth(e, r + 1) < 3 ||
                    pieces[0].bottom() >= image.height())
                    continue;
                const QRect chip = pieces[0];
                const int y = chip.top() + 1; // above the centred label
                const int layer = m_view->layers().indexOf(
                    m_model->index(r, 0, m_model->edgeIndex(e)).data(ShardMapModel::LayerRole).toString());
                const QColor colour = ShardChipView::layerColour(layer);
                QCOMPARE(image.pixelColor(chip.left() + 1, y), colour);
                QCOMPARE(image.pixelColor(chip.right(), y), colour);
                QVERIFY(image.pixelColor(chip.right() + 1, y) != colour); // the next chip's darker first column
                ++checked;
            }
        QVERIFY(checked > 0);
    }

    void clickCtrlClickAndDropMoveTheSelection() {
        build(2, 2, 900);
        QSignalSpy moves(m_model.get(), &ShardMapModel::moveRequested);
        QTest::mouseClick(m_view->viewport(), Qt::LeftButton, Qt::NoModifier, chipCentre(0, 0));
        QTest::mouseClick(m_view->viewport(), Qt::LeftButton, Qt::ControlModifier, chipCentre(0, 2));
        QVERIFY(m_view->chipSelected(0, 0));
        QVERIFY(!m_view->chipSelected(0, 1));
        QVERIFY(m_view->chipSelected(0, 2));
        const int first = m_model->index(0, 0, m_model->edgeIndex(0)).data(ShardMapModel::ShardIdRole).toInt();
        const int third = m_model->index(2, 0, m_model->edgeIndex(0)).data(ShardMapModel::ShardIdRole).toInt();
        std::unique_ptr<QMimeData> mime(m_view->selectionMimeData());
        QVERIFY(mime);
        dropOn(1, mime.get());
        QCOMPARE(moves.count(), 2);
        QCOMPARE(moves[0][0].value<engine::SimCommand>().shard, first);
        QCOMPARE(moves[1][0].value<engine::SimCommand>().shard, third);
        for (const auto &m : moves) {
            QCOMPARE(m[0].value<engine::SimCommand>().kind, engine::SimCommand::Kind::MoveShard);
            QCOMPARE(m[0].value<engine::SimCommand>().node, 1);
            QCOMPARE(m[0].value<engine::SimCommand>().region, 0);
        }
        QVERIFY(m_view->chipInFlight(0, 0));
        QVERIFY(m_view->chipInFlight(0, 2));
        QVERIFY(!m_view->chipInFlight(0, 1));
    }

    void refusedDropSaysWhyAndSendsNothing() {
        build(2, 2, 900);
        QSignalSpy moves(m_model.get(), &ShardMapModel::moveRequested);
        QSignalSpy refused(m_model.get(), &ShardMapModel::moveRefused);
        QTest::mouseClick(m_view->viewport(), Qt::LeftButton, Qt::NoModifier, chipCentre(0, 0));
        std::unique_ptr<QMimeData> mime(m_view->selectionMimeData());
        dropOn(2, mime.get()); // another region
        QCOMPARE(moves.count(), 0);
        QCOMPARE(refused.count(), 1);
        QVERIFY(refused[0][0].toString().contains("only within a region"));
    }

    void rubberBandSelectsTheChipsItCrosses() {
        build(2, 2, 900);
        const QRect target = m_view->chipRects(0, 2).value(0);
        QTest::mousePress(m_view->viewport(), Qt::LeftButton, Qt::NoModifier, nameOf(0));
        const QPoint end(target.center().x(), target.center().y());
        QMouseEvent move(QEvent::MouseMove, QPointF(end), QPointF(m_view->viewport()->mapToGlobal(end)), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_view->viewport(), &move);
        QTest::mouseRelease(m_view->viewport(), Qt::LeftButton, Qt::NoModifier, end);
        for (int r = 0; r <= 2; ++r)
            QVERIFY2(m_view->chipSelected(0, r), qPrintable(QString::number(r)));
        QVERIFY(!m_view->chipSelected(0, 3));
        QVERIFY(!m_view->chipSelected(1, 0));
    }

    void inFlightMovesStayMarkedUntilReported() {
        build(2, 2, 900);
        const int shard = m_model->index(1, 0, m_model->edgeIndex(0)).data(ShardMapModel::ShardIdRole).toInt();
        m_model->setMoveInFlight(shard, 0, 1, true); // accepted by the engine, e.g. from a commands file
        QVERIFY(m_view->chipInFlight(0, 1));
        QVERIFY(!m_view->chipInFlight(0, 0));
        // Drawn: the dashed orange outline starts at the chip's corner.
        const QRect chip = m_view->chipRects(0, 1).value(0);
        const QImage image = m_view->viewport()->grab().toImage();
        QCOMPARE(image.pixelColor(chip.topLeft()), QColor(0xf0, 0x9a, 0x30));
        QVERIFY(m_view->toolTipAt(chip.center()).contains("moving to r0-1"));
        // Still marked after unrelated snapshots; gone once the engine reports the move.
        m_table->setOwnerVersion(shard, 1, 3, 1.0);
        m_model->setSnapshot(m_table->snapshot());
        QVERIFY(m_view->chipInFlight(0, 1));
        const int before0 = m_view->chipLayout().chipCount(0), before1 = m_view->chipLayout().chipCount(1);
        m_table->setOwner(shard, 0, 1);
        m_model->setSnapshot(m_table->snapshot());
        QCOMPARE(m_view->chipLayout().chipCount(0), before0 - 1);
        QCOMPARE(m_view->chipLayout().chipCount(1), before1 + 1);
        for (int e = 0; e < 2; ++e)
            for (int r = 0; r < m_view->chipLayout().chipCount(e); ++r)
                QVERIFY(!m_view->chipInFlight(e, r));
    }

    void tooltipsNameTheShard() {
        build(2, 2, 900);
        const QString tip = m_view->toolTipAt(chipCentre(0, 0));
        QVERIFY2(tip.contains("layer ") && tip.contains("parameters") && tip.contains("version"), qPrintable(tip));
        const QString edgeTip = m_view->toolTipAt(nameOf(0));
        QVERIFY2(edgeTip.startsWith("r0-0 (r0)") && edgeTip.contains("5–15 %"), qPrintable(edgeTip));
        QCOMPARE(m_view->indexAt(nameOf(1)), m_model->edgeIndex(1));
    }
};

QTEST_MAIN(TestShardChipView)
#include "tst_shard_chip_view.moc"
