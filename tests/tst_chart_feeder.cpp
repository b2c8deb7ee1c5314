// ChartFeeder: engine events become chart points — accuracy/loss per scope,
// the worst lag and drift per region per center sync, link counters summed
// into and out of the center and per link of the focused edge — and an
// instant is charted only once all its events are in.
#include "ui/charts/time_series_chart.h"
#include "ui/telemetry/chart_feeder.h"

#include <QTest>

using namespace synaptic;
using namespace synaptic::ui;

class TestChartFeeder : public QObject {
    Q_OBJECT
    // Two regions of two edges: nodes 1, 2 in "eu", 3, 4 in "us"; node 0 is the center.
    const QStringList m_edges{"eu-0", "eu-1", "us-0", "us-1"};
    const QVector<int> m_regionOfEdge{0, 0, 1, 1};
    const QStringList m_regions{"eu", "us"};

    struct Charts {
        TimeSeriesChart training{"t"}, drift{"d"}, bandwidth{"b"};
    };

private Q_SLOTS:
    void metricsBecomeAccuracyAndLossSeries() {
        Charts c;
        ChartFeeder feeder(&c.training, &c.drift, &c.bandwidth);
        feeder.setTopology(m_edges, m_regionOfEdge, m_regions, 32);
        feeder.add(engine::MetricEvent{1.5, "global", 1280, std::nan(""), 0.71, 0}, 0, 2.0);
        feeder.add(engine::MetricEvent{1.5, "region:eu", 1280, 0.9, 0.69, 0}, 0, 2.0);
        feeder.add(engine::MetricEvent{1.5, "region:us", 1280, 0.8, std::nan(""), 0}, 0, 2.0);
        feeder.add(engine::MetricEvent{9.0, "global:full", 9999, 0.1, 0.88, 0}, 0, 3.0); // not charted
        feeder.flush();
        QCOMPARE(c.training.rawPointCount("acc global"), 1);
        QCOMPARE(c.training.rawPointCount("acc eu"), 1);
        QCOMPARE(c.training.rawPointCount("acc us"), 0); // region not evaluated
        QCOMPARE(c.training.rawPointCount("loss us"), 1);
        QCOMPARE(c.training.rawPointCount("loss global"), 0);  // the global scope has no training loss
        QCOMPARE(c.training.smoothedValues("loss eu").value(0), 0.9);
        QCOMPARE(c.training.seriesNames().size(), 4);
        // x in steps per edge: 1280 samples / batch 32 / 4 edges = 10.
        c.training.setXAxisKind(XAxisKind::Steps);
        c.training.flush();
        QCOMPARE(c.training.visibleXRange().second >= 10.0, true);
    }

    void driftFoldsOneSyncIntoTheWorstValuePerRegion() {
        Charts c;
        ChartFeeder feeder(&c.training, &c.drift, &c.bandwidth);
        feeder.setTopology(m_edges, m_regionOfEdge, m_regions, 32);
        feeder.add(engine::DriftEvent{4.0, 0, 0, 2, 0.01}, 100, 1);
        feeder.add(engine::DriftEvent{4.0, 1, 0, 5, 0.03}, 100, 1);
        feeder.add(engine::DriftEvent{4.0, 0, 1, 1, 0.02}, 100, 1);
        feeder.flush(4.0); // the engine's clock has not passed 4.0: the sync may have more rows
        QCOMPARE(c.drift.rawPointCount("lag eu"), 0);
        feeder.add(engine::DriftEvent{4.0, 1, 1, 3, 0.05}, 100, 1);
        feeder.flush(4.5);
        QCOMPARE(c.drift.rawPointCount("lag eu"), 1);
        QCOMPARE(c.drift.smoothedValues("lag eu").value(0), 5.0);
        QCOMPARE(c.drift.smoothedValues("drift eu").value(0), 0.03);
        QCOMPARE(c.drift.smoothedValues("lag us").value(0), 3.0);
        QCOMPARE(c.drift.smoothedValues("drift us").value(0), 0.05);
        // A later sync starts a new point even before the clock moves on.
        feeder.add(engine::DriftEvent{8.0, 0, 0, 7, 0.2}, 200, 2);
        feeder.add(engine::DriftEvent{12.0, 0, 0, 1, 0.1}, 300, 3);
        feeder.flush(12.0);
        QCOMPARE(c.drift.smoothedValues("lag eu"), QVector<double>({5.0, 7.0}));
    }

    void linkCountersSumIntoCenterTrafficAndFocusedLinks() {
        Charts c;
        ChartFeeder feeder(&c.training, &c.drift, &c.bandwidth);
        feeder.setTopology(m_edges, m_regionOfEdge, m_regions, 32);
        feeder.setFocusEdge(1); // eu-1 = node 2
        const double t = 2.0, dt = 0.5;
        feeder.add(engine::LinkBytesEvent{t, dt, 1, 0, 1'000'000}, 0, 1); // eu-0 → center: 2 MB/s
        feeder.add(engine::LinkBytesEvent{t, dt, 2, 0, 500'000}, 0, 1);   // eu-1 → center: 1 MB/s
        feeder.add(engine::LinkBytesEvent{t, dt, 0, 2, 250'000}, 0, 1);   // center → eu-1: 0.5 MB/s
        feeder.add(engine::LinkBytesEvent{t, dt, 1, 2, 4'000'000}, 0, 1); // eu-0 → eu-1: intra-region, 8 MB/s
        feeder.add(engine::LinkBytesEvent{t, dt, 3, 1, 100'000}, 0, 1);   // us-0 → eu-0: 0.2 MB/s inter-region
        feeder.flush();
        auto value = [&](const QString &s) { return c.bandwidth.smoothedValues(s).value(0, -1); };
        QCOMPARE(value("into center"), 3.0);
        QCOMPARE(value("out of center"), 0.5);
        QCOMPARE(value("WAN out of eu"), 3.0);
        QCOMPARE(value("WAN into eu"), 0.7);
        QCOMPARE(value("WAN out of us"), 0.2);
        QCOMPARE(value("eu-1 ↔ center"), 1.5);
        QCOMPARE(value("eu-1 ↔ eu-0"), 8.0);
        QCOMPARE(c.bandwidth.rawPointCount("eu-0 ↔ center"), 0); // eu-0 is not focused
    }

    void clearEmptiesEveryChart() {
        Charts c;
        ChartFeeder feeder(&c.training, &c.drift, &c.bandwidth);
        feeder.setTopology(m_edges, m_regionOfEdge, m_regions, 32);
        feeder.add(engine::MetricEvent{1, "global", 64, 0, 0.5, 0}, 0, 0);
        feeder.add(engine::LinkBytesEvent{1, 1, 1, 0, 10}, 0, 0);
        feeder.flush();
        feeder.clear();
        QCOMPARE(c.training.rawPointCount("acc global"), 0);
        QCOMPARE(c.bandwidth.rawPointCount("into center"), 0);
    }
};

QTEST_MAIN(TestChartFeeder)
#include "tst_chart_feeder.moc"
