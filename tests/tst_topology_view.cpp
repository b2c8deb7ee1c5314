// Topology view: layout stays legible from 2×3 to 8×8 edges, nodes are
// coloured by lease state, links by bandwidth and partition, clicks select,
// and live updates restyle items instead of rebuilding the scene.
#include "ui/topology/topology_items.h"
#include "ui/topology/topology_layout.h"
#include "ui/topology/topology_style.h"
#include "ui/topology/topology_geography.h"
#include "ui/topology/topology_view.h"

#include "core/engine/sim/cluster_config.h"

#include <QGraphicsScene>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

using namespace synaptic::ui;
using synaptic::engine::loadClusterConfig;
using M = TopologyMetrics;
using Sel = TopologySelection;

namespace {

const QStringList kRegions{"eu", "us", "ap", "sa", "af", "me", "oc", "na"};
// `regions` regions of `perRegion` edges each, named like the default cluster ("eu-0").
QVector<int> fill(TopologyView &view, int regions, int perRegion) {
    QStringList edges;
    QVector<int> regionOf;
    for (int e = 0; e < regions * perRegion; ++e) {
        edges << QStringLiteral("%1-%2").arg(kRegions[e / perRegion]).arg(e % perRegion);
        regionOf << e / perRegion;
    }
    view.setTopology(kRegions.mid(0, regions), edges, regionOf);
    return regionOf;
}

bool show(TopologyView &view) {
    view.resize(700, 450);
    view.show();
    return QTest::qWaitForWindowExposed(&view);
}
// Circle plus label: what must not touch a neighbour's.
QRectF footprint(QPointF centre) {
    const QRectF circle(centre - QPointF(M::kNodeRadius, M::kNodeRadius), QSizeF(2, 2) * M::kNodeRadius);
    return circle.united(TopologyLayout::labelRect(centre));
}
int countItems(QGraphicsScene *scene, int type) {
    const auto items = scene->items();
    return int(std::count_if(items.begin(), items.end(), [type](QGraphicsItem *item) { return item->type() == type; }));
}
QString itemToolTip(const TopologyView &view, int node) {
    for (QGraphicsItem *item : view.scene()->items())
        if (item->type() == NodeItem::Type && static_cast<NodeItem *>(item)->node() == node)
            return item->toolTip();
    return {};
}
bool isRedDashed(const QPen &pen) {
    return pen.style() > Qt::SolidLine && pen.color().red() > 180 && pen.color().green() < 100;
}

} // namespace

namespace synaptic::ui { // so QCOMPARE failures name the selection
char *toString(const TopologySelection &s) {
    return QTest::toString(QStringLiteral("TopologySelection(%1, %2)").arg(int(s.kind)).arg(s.index));
}
} // namespace synaptic::ui

class TestTopologyView : public QObject {
    Q_OBJECT

    // A realistic live state, for the rendered pictures.
    static void liven(TopologyView &view, int regions, int perRegion) {
        const char *modes[] = {"training", "training", "catching_up", "read_only", "training", "down"};
        for (int e = 0; e < view.edgeCount(); ++e) {
            view.setEdgeMode(e, QString::fromLatin1(modes[(e * 7 + e / perRegion) % 6]));
            view.setLinkRate(e + 1, 0, 2e3 * std::pow(1.6, e % 12));
            view.setLinkRate(0, e + 1, 5e2 * (e % 3));
        }
        for (int e = 0; e + 1 < view.edgeCount(); ++e)
            if (e % perRegion % 2 == 0 && e % perRegion + 1 < perRegion) // pairs inside a region
                view.setLinkRate(e + 1, e + 2, 8e5 / (1 + e % perRegion));
        view.setLinkRate(1, perRegion + 1, 3e4); // across regions
        view.setLinkDown(2, 0, true);
        view.setRegionPartitioned(regions - 1, true);
        view.select({Sel::Edge, 0});
    }

private Q_SLOTS:
    void layoutIsLegible_data() {
        QTest::addColumn<int>("regions");
        QTest::addColumn<int>("perRegion");
        QTest::addColumn<qreal>("minZoom"); // at the default 700×450 view
        QTest::newRow("2x3") << 2 << 3 << 1.2;
        QTest::newRow("3x4 default cluster") << 3 << 4 << 1.2;
        QTest::newRow("8x2 center between rows") << 8 << 2 << 1.0;
        QTest::newRow("8x8") << 8 << 8 << 0.85;
    }
    void layoutIsLegible() {
        QFETCH(int, regions);
        QFETCH(int, perRegion);
        QFETCH(qreal, minZoom);
        TopologyView view;
        QVERIFY(show(view));
        const QVector<int> regionOf = fill(view, regions, perRegion);
        QCOMPARE(countItems(view.scene(), NodeItem::Type), regions * perRegion + 1);
        QCOMPARE(countItems(view.scene(), RegionItem::Type), regions);

        const QRectF centerDisc(view.nodePosition(0) - QPointF(M::kCenterRadius, M::kCenterRadius),
                                QSizeF(2, 2) * M::kCenterRadius);
        for (int r = 0; r < regions; ++r) {
            QVERIFY(!view.regionRect(r).intersects(centerDisc));
            QCOMPARE(view.regionPosition(r), view.regionRect(r).center());
            for (int s = 0; s < r; ++s)
                QVERIFY2(!view.regionRect(r).intersects(view.regionRect(s)), "region boxes overlap");
        }
        // Center links leave a box by ports on its side facing the center, in
        // edge order, so the fan toward the center does not cross itself.
        const TopologyLayout layout = layoutTopology(regions, regionOf);
        for (int e = 0; e < view.edgeCount(); ++e) {
            const QPointF p = view.nodePosition(e + 1);
            const QRectF box = view.regionRect(e / perRegion);
            QVERIFY2(box.contains(footprint(p)), qPrintable(view.toolTipFor(e + 1)));
            for (int f = 0; f < e; ++f) {
                QVERIFY(QLineF(p, view.nodePosition(f + 1)).length() > 2 * M::kNodeRadius);
                QVERIFY2(!footprint(p).intersects(footprint(view.nodePosition(f + 1))), "labels overlap");
            }
            const QPointF port = layout.centerPorts[e];
            QCOMPARE(port.y(), layout.centerBelow(e / perRegion) ? box.bottom() : box.top());
            QVERIFY(port.x() > box.left() && port.x() < box.right());
            QVERIFY(e % perRegion == 0 || port.x() > layout.centerPorts[e - 1].x());
        }
        // All of it visible, above the legend strip, and large enough to read.
        const qreal zoom = view.transform().m11();
        QVERIFY2(zoom >= minZoom, qPrintable(QString::number(zoom)));
        const QRect port = view.viewport()->rect().adjusted(0, 0, 0, -30);
        QVERIFY(port.contains(view.mapFromScene(centerDisc).boundingRect()));
        for (int r = 0; r < regions; ++r)
            QVERIFY(port.contains(view.mapFromScene(view.regionRect(r)).boundingRect()));
    }

    void modesColourNodes() {
        TopologyView view;
        fill(view, 2, 3);
        const QColor unknown = view.nodeColor(1);
        const auto setMode = [&](const char *mode) {
            view.setEdgeMode(0, QString::fromLatin1(mode));
            return view.nodeColor(1);
        };
        const QColor training = setMode("training");
        QVERIFY(view.toolTipFor(1).contains(QStringLiteral("mode: training")));
        const QColor readOnly = setMode("read_only");
        QVERIFY(view.toolTipFor(1).contains(QStringLiteral("mode: read-only")));
        const QColor down = setMode("down");
        QVERIFY(training != unknown && readOnly != training && down != training && down != readOnly);
        QVERIFY(down.lightness() < training.lightness()); // dimmed, not just another hue
        QCOMPARE(view.nodeColor(2), unknown);             // the others untouched

        QVERIFY(view.toolTipFor(0).contains(QStringLiteral("state: up")));
        const QColor up = view.nodeColor(0);
        view.setCenterUp(false);
        QVERIFY(view.nodeColor(0) != up);
        QVERIFY(view.toolTipFor(0).contains(QStringLiteral("state: down")));

        view.setNodeDetails(2, QStringLiteral("owns 4 shards, 25.2 % of parameters"));
        QVERIFY(view.toolTipFor(2).endsWith(QStringLiteral("owns 4 shards, 25.2 % of parameters")));
        QVERIFY(view.toolTipFor(2).startsWith(QStringLiteral("eu-1\nregion: eu\n")));
        QCOMPARE(itemToolTip(view, 2), view.toolTipFor(2)); // what hovering shows follows at once
    }

    void ratesSetWidthAndColour() {
        TopologyView view;
        fill(view, 2, 3);
        const QPen idle = view.linkPen(3, 0);
        QCOMPARE(idle.widthF(), 1.0);
        QVERIFY(idle.color().hsvSaturation() < 40);      // grey
        QCOMPARE(view.linkPen(1, 2).style(), Qt::NoPen); // edge↔edge links appear only once they carry traffic

        view.setLinkRate(1, 0, 1e6);
        view.setLinkRate(0, 1, 5e5);
        view.setLinkRate(2, 0, 1e4);
        view.setLinkRate(4, 0, 1e2);
        const QPen busy = view.linkPen(0, 1);
        const QPen quiet = view.linkPen(2, 0);
        QCOMPARE(busy, view.linkPen(1, 0)); // undirected
        QCOMPARE(busy.widthF(), 8.0);       // the busiest link, both directions summed
        QVERIFY(quiet.widthF() > 1.0 && quiet.widthF() < busy.widthF());
        QVERIFY(busy.color().red() > busy.color().blue());   // hot
        QVERIFY(quiet.color().blue() > quiet.color().red()); // cool
        // Far below the busiest: thinnest, but still coloured as "in use", unlike idle grey.
        QCOMPARE(view.linkPen(4, 0).widthF(), 1.0);
        QVERIFY(view.linkPen(4, 0).color().hsvSaturation() > 100);
        QVERIFY(view.toolTipFor(1).contains(QStringLiteral("in: 500 kB/s, out: 1.0 MB/s")));
        QVERIFY(view.toolTipFor(0).contains(QStringLiteral("in: 1.0 MB/s, out: 500 kB/s")));

        // Updating keeps the scene: no items added, just restyled.
        const int items = int(view.scene()->items().size());
        view.setLinkRate(2, 0, 1e7);
        QCOMPARE(view.scene()->items().size(), items);
        QVERIFY(view.linkPen(2, 0).widthF() > view.linkPen(0, 1).widthF());
        view.setLinkRate(2, 0, 0);
        QCOMPARE(view.linkPen(2, 0), idle);

        view.setLinkRate(1, 2, 2e5); // inside region eu: drawn from now on
        QVERIFY(view.linkPen(2, 1).style() == Qt::SolidLine);
        view.setLinkRate(1, 2, 0);
        QCOMPARE(view.linkPen(2, 1), idle); // stays, idle, rather than flickering away
        view.setLinkRate(3, 4, 1e3);        // across regions
        QCOMPARE(view.linkPen(3, 4).style(), Qt::SolidLine);
        view.setLinkRate(0, 0, 5);  // not a link
        view.setLinkRate(0, 99, 5); // no such node
        QCOMPARE(view.scene()->items().size(), items + 2);
        // Setters only schedule: one pass on the next event-loop turn brings the
        // items' own tooltips (what hovering shows) up to date.
        view.setLinkRate(4, 0, 3e3);
        QVERIFY(itemToolTip(view, 4) != view.toolTipFor(4));
        QCoreApplication::processEvents();
        for (int node = 0; node <= view.edgeCount(); ++node)
            QCOMPARE(itemToolTip(view, node), view.toolTipFor(node));
        QCOMPARE(formatRate(0), QStringLiteral("0 B/s"));
        QCOMPARE(formatRate(1234), QStringLiteral("1.2 kB/s"));
        QCOMPARE(formatRate(1.2e6), QStringLiteral("1.2 MB/s"));
        QCOMPARE(formatRate(-3), QStringLiteral("0 B/s"));
    }

    void partitionsDashRed() {
        TopologyView view;
        fill(view, 2, 3);
        view.setLinkRate(1, 0, 1e6);
        const QPen before = view.linkPen(1, 0);
        view.setLinkDown(0, 1, true);
        QVERIFY(isRedDashed(view.linkPen(1, 0)));
        view.setLinkDown(1, 0, false);
        QCOMPARE(view.linkPen(1, 0), before);

        view.setLinkDown(1, 2, true); // an edge↔edge link that never carried traffic still shows it is cut
        QVERIFY(isRedDashed(view.linkPen(1, 2)));
        view.setLinkDown(1, 2, false);
        QCOMPARE(view.linkPen(1, 2).style(), Qt::NoPen);

        view.setLinkRate(2, 3, 1e4); // inside eu
        view.setLinkRate(1, 4, 1e4); // eu ↔ us
        view.setRegionPartitioned(0, true);
        for (int node = 1; node <= 6; ++node)
            QCOMPARE(isRedDashed(view.linkPen(node, 0)), node <= 3); // eu's center links, not us's
        QVERIFY(isRedDashed(view.linkPen(1, 4)));
        QVERIFY(!isRedDashed(view.linkPen(2, 3))); // the region's own links still work
        QVERIFY(view.toolTipFor(2).contains(QStringLiteral("partitioned")));
        view.setRegionPartitioned(0, false);
        QCOMPARE(view.linkPen(1, 0), before);
        QVERIFY(!isRedDashed(view.linkPen(1, 4)));
        QVERIFY(!view.toolTipFor(2).contains(QStringLiteral("partitioned")));
    }

    void clicksSelect() {
        TopologyView view;
        QVERIFY(show(view));
        fill(view, 3, 4);
        QSignalSpy spy(&view, &TopologyView::selectionChanged);
        const Sel silent{Sel::None, -2}, twice{Sel::None, -3};
        // What the last action emitted: exactly one selection, or nothing.
        const auto emitted = [&] {
            const Sel last = spy.count() == 1 ? spy[0][0].value<Sel>() : spy.isEmpty() ? silent : twice;
            spy.clear();
            return last;
        };
        const auto click = [&](QPointF scene) {
            QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(scene));
            return emitted();
        };
        QCOMPARE(click(view.nodePosition(5)), (Sel{Sel::Edge, 4}));
        QCOMPARE(view.selection(), (Sel{Sel::Edge, 4}));
        QCOMPARE(click(view.nodePosition(5) + QPointF(2, 2)), silent); // same node: no change, no signal
        QCOMPARE(click(view.nodePosition(7) + QPointF(0, M::kNodeRadius + 8)), (Sel{Sel::Edge, 6})); // its label
        const QRectF box = view.regionRect(2);
        QCOMPARE(click(QPointF(box.right() - 6, box.bottom() - 3)), (Sel{Sel::Region, 2})); // off its edges
        QCOMPARE(click(view.nodePosition(0)), (Sel{Sel::Center, -1}));
        QCOMPARE(click(view.mapToScene(QPoint(3, 3))), Sel{}); // the top-left corner is empty

        const auto select = [&](Sel selection) {
            view.select(selection);
            return emitted();
        };
        QCOMPARE(select({Sel::Region, 1}), (Sel{Sel::Region, 1}));
        QCOMPARE(select({Sel::Region, 1}), silent);
        QCOMPARE(select({Sel::Edge, 99}), Sel{}); // names nothing: means None
        QCOMPARE(select({Sel::Edge, 11}), (Sel{Sel::Edge, 11}));
        fill(view, 3, 4); // the same cluster again: the selection still names something
        QCOMPARE(emitted(), silent);
        QCOMPARE(view.selection(), (Sel{Sel::Edge, 11}));
        fill(view, 2, 3); // edge 11 is gone
        QCOMPARE(emitted(), Sel{});
    }

    void renders_data() {
        QTest::addColumn<int>("regions");
        QTest::addColumn<int>("perRegion");
        QTest::addColumn<QString>("file");
        QTest::newRow("2x3") << 2 << 3 << QStringLiteral("topology_2x3.png");
        QTest::newRow("8x8 dark") << 8 << 8 << QStringLiteral("topology_8x8.png");
        QTest::newRow("3x4 dark") << 3 << 4 << QStringLiteral("topology_3x4_dark.png");
    }
    void renders() {
        QFETCH(int, regions);
        QFETCH(int, perRegion);
        QFETCH(QString, file);
        TopologyView view;
        if (QByteArray(QTest::currentDataTag()).contains("dark")) { // the app's default theme (ui/theme.cpp)
            QPalette p = view.palette();
            p.setColor(QPalette::Base, QColor(0x1f, 0x21, 0x24));
            p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
            p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xe0));
            view.setPalette(p);
            QCOMPARE(view.backgroundBrush().color(), QColor(0x1f, 0x21, 0x24)); // follows the theme
        }
        QVERIFY(show(view));
        fill(view, regions, perRegion);
        liven(view, regions, perRegion);
        QCoreApplication::processEvents();
        const QImage image = view.grab().toImage();
        QCOMPARE(image.size(), QSize(700, 450) * image.devicePixelRatio());
        for (int node = 1; node <= view.edgeCount(); node += 5) { // painted in its state colour where it says
            const QColor pixel = image.pixelColor(view.mapFromScene(view.nodePosition(node)) + QPoint(0, -3));
            QVERIFY(qAbs(pixel.red() - view.nodeColor(node).red()) + qAbs(pixel.blue() - view.nodeColor(node).blue()) <
                    20);
        }
        QTemporaryDir dir;
        QVERIFY(image.save(dir.filePath(QStringLiteral("topology.png"))));
        // SYNAPTIC_SHOT_DIR=dir keeps the pictures for a person to look at.
        if (qEnvironmentVariableIsSet("SYNAPTIC_SHOT_DIR"))
            QVERIFY(image.save(qEnvironmentVariable("SYNAPTIC_SHOT_DIR") + '/' + file));
    }

    void hoverShowsNumbers() {
        TopologyView view;
        QVERIFY(show(view));
        fill(view, 2, 3);
        view.setLinkRate(4, 0, 1.2e6);
        QCoreApplication::processEvents();
        const auto hover = [&](QPointF scene) {
            const QPoint at = view.mapFromScene(scene);
            QHelpEvent event(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
            QCoreApplication::sendEvent(view.viewport(), &event);
        };
        hover(view.nodePosition(4) + QPointF(0, M::kNodeRadius + 6)); // over its label
        QTRY_COMPARE(QToolTip::text(), view.toolTipFor(4));
        QVERIFY(QToolTip::text().contains(QStringLiteral("out: 1.2 MB/s")));
        hover(view.regionPosition(1) + QPointF(view.regionRect(1).width() / 2 - 4, 0));
        QTRY_VERIFY(QToolTip::text().startsWith(QStringLiteral("us\n3 edge")));
    }

    // Geography (issue 14) on the shipped default: each link's tooltip says
    // its latency and bandwidth (the region pair's, the slow edge's last
    // mile on top), regions list their links, ap-7 names its last mile (and
    // local updates when it takes them), and a live set-link replaces the
    // shown values.
    void geographyInTooltips() {
        const auto config = loadClusterConfig(qEnvironmentVariable("SYNAPTIC_RESOURCES").toStdString() +
                                              "/default_cluster.json");
        TopologyView view;
        QStringList regions, edges;
        QVector<int> regionOf;
        for (std::size_t r = 0; r < config.regions.size(); ++r) {
            regions << QString::fromStdString(config.regions[r].name);
            for (const auto &e : config.regions[r].edges) {
                edges << QString::fromStdString(e.name);
                regionOf << int(r);
            }
        }
        view.setTopology(regions, edges, regionOf);
        showGeography(view, config);
        const int eu0 = 1, ap0 = 17, ap7 = 24; // node ids: 0 = center, edge e = e + 1
        QCOMPARE(edges[ap7 - 1], QString("ap-7"));
        QVERIFY2(view.linkToolTipFor(eu0, 0).contains("link: 40 ms one way, 100 Mb/s"),
                 qPrintable(view.linkToolTipFor(eu0, 0)));
        QVERIFY2(view.linkToolTipFor(ap7, 0).contains("link: 60 ms one way, 20 Mb/s"),
                 qPrintable(view.linkToolTipFor(ap7, 0)));
        // An edge-to-edge link is drawn once it carries traffic; eu <-> ap is the 120 ms pair.
        view.setLinkRate(eu0, ap0, 1000);
        QVERIFY2(view.linkToolTipFor(eu0, ap0).contains("link: 120 ms one way, 100 Mb/s"),
                 qPrintable(view.linkToolTipFor(eu0, ap0)));
        view.setLinkRate(ap0, ap7, 1000);
        QVERIFY2(view.linkToolTipFor(ap0, ap7).contains("link: 21 ms one way, 20 Mb/s"),
                 qPrintable(view.linkToolTipFor(ap0, ap7)));
        const QString eu = view.regionToolTipFor(0);
        QVERIFY2(eu.contains("to us: 40 ms one way, 100 Mb/s") && eu.contains("to ap: 120 ms one way, 100 Mb/s") &&
                     eu.contains("inside: 1 ms one way, 1 Gb/s") && eu.contains("to center: 40 ms one way"),
                 qPrintable(eu));
        QVERIFY2(view.regionToolTipFor(1).contains("to ap: 100 ms one way"), qPrintable(view.regionToolTipFor(1)));
        QVERIFY2(view.toolTipFor(ap7).contains("last mile: +20 ms, at most 20 Mb/s"), qPrintable(view.toolTipFor(ap7)));
        QVERIFY(!view.toolTipFor(ap0).contains("last mile"));
        QVERIFY(!view.toolTipFor(ap0).contains("interface"));
        // Node interfaces (links.node_interfaces), when the config models
        // them: ap-7's is its last mile's 20 Mb/s, the center's its own.
        auto withInterfaces = config;
        withInterfaces.edgeInterfaceBitsPerSecond = 1e9;
        withInterfaces.centerInterfaceBitsPerSecond = 10e9;
        showGeography(view, withInterfaces);
        QVERIFY2(view.toolTipFor(ap0).contains("interface: 1000 Mb/s each way"), qPrintable(view.toolTipFor(ap0)));
        QVERIFY2(view.toolTipFor(ap7).contains("last mile: +20 ms") &&
                     view.toolTipFor(ap7).contains("interface: 20 Mb/s each way"),
                 qPrintable(view.toolTipFor(ap7)));
        QVERIFY2(view.toolTipFor(0).contains("interface: 10000 Mb/s each way"), qPrintable(view.toolTipFor(0)));
        // One edge's own local_updates key, or the knob for every edge.
        auto slowEdgeLocal = config;
        slowEdgeLocal.regions.back().edges.back().localUpdates = true;
        showGeography(view, slowEdgeLocal);
        QVERIFY2(view.toolTipFor(ap7).contains("local updates: takes its own optimizer steps"),
                 qPrintable(view.toolTipFor(ap7)));
        QVERIFY(!view.toolTipFor(ap0).contains("local updates"));
        auto everyEdgeLocal = config;
        everyEdgeLocal.knobs.localUpdates = true;
        showGeography(view, everyEdgeLocal);
        QVERIFY(view.toolTipFor(ap0).contains("local updates") && view.toolTipFor(eu0).contains("local updates"));
        QVERIFY(!view.toolTipFor(0).contains("local updates"));
        everyEdgeLocal.strategy = "hier_diloco"; // the knob is synaptic's alone
        showGeography(view, everyEdgeLocal);
        QVERIFY(!view.toolTipFor(ap0).contains("local updates"));
        showGeography(view, config);
        QVERIFY(!view.toolTipFor(0).contains("interface"));
        QVERIFY(!view.toolTipFor(ap7).contains("local updates"));
        view.setLinkSpec(ap7, 0, 0.005, 1e9);
        QVERIFY2(view.linkToolTipFor(0, ap7).contains("link: 5 ms one way, 1 Gb/s"),
                 qPrintable(view.linkToolTipFor(0, ap7)));
    }
};

QTEST_MAIN(TestTopologyView)
#include "tst_topology_view.moc"
