// Charts: TensorBoard's smoothing and the pixel-width thinning on real data,
// then the widget — follow vs zoom, the three clocks, exports read back — and
// the panel's placeholder. GUI parts run on the offscreen platform.
#include "ui/charts/chart_panel.h"
#include "ui/charts/series_math.h"
#include "ui/charts/time_series_chart.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

using namespace synaptic::ui;

namespace {

SamplePoint sample(double step, double value) {
    return SamplePoint{step, step * 0.01, step * 0.02, value};
}

// The raw line first, then its smoothed companion (creation order).
QList<QLineSeries *> lines(TimeSeriesChart &chart, const QString &name) {
    QList<QLineSeries *> out;
    for (QAbstractSeries *s : chart.chart()->series())
        if (s->name() == name)
            out.append(static_cast<QLineSeries *>(s));
    return out;
}

QValueAxis *xAxis(TimeSeriesChart &chart) {
    return static_cast<QValueAxis *>(chart.chart()->axes(Qt::Horizontal).first());
}

// After the legend has laid itself out (a posted event), which also sets marker visibility.
int visibleMarkers(TimeSeriesChart &chart) {
    QTest::qWait(20);
    int n = 0;
    for (QLegendMarker *m : chart.chart()->legend()->markers())
        n += m->isVisible();
    return n;
}

void showChart(QWidget &w) {
    w.resize(800, 400);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

} // namespace

class TestTimeSeriesChart : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        QTest::failOnWarning(QRegularExpression(QStringLiteral("QObject::connect")));
    }

    void emaSmooth_data() {
        QTest::addColumn<QVector<double>>("values");
        QTest::addColumn<double>("weight");
        QTest::addColumn<QVector<double>>("expected");
        const QVector<double> noisy{0.3, -2, 7.5, 1e6, 0};
        QTest::newRow("weight 0 is identity") << noisy << 0.0 << noisy;
        QTest::newRow("constant stays constant") << QVector<double>(50, 2.5) << 0.9
                                                 << QVector<double>(50, 2.5);
        // By hand: last = 0.5, 1.25, 2.125; debias 0.5, 0.75, 0.875.
        QTest::newRow("three values") << QVector<double>{1, 2, 3} << 0.5
                                      << QVector<double>{1, 5.0 / 3, 17.0 / 7};
        // The NaN is skipped: 3 is the second value seen, so 1.75 / 0.75.
        QTest::newRow("nan passes through") << QVector<double>{1, qQNaN(), 3} << 0.5
                                            << QVector<double>{1, qQNaN(), 7.0 / 3};
    }

    void emaSmooth() {
        QFETCH(QVector<double>, values);
        QFETCH(double, weight);
        QFETCH(QVector<double>, expected);
        const QVector<double> got = synaptic::ui::emaSmooth(values, weight);
        QCOMPARE(got.size(), expected.size());
        for (qsizetype i = 0; i < got.size(); ++i) {
            if (std::isnan(expected[i]))
                QVERIFY2(std::isnan(got[i]), qPrintable(QString::number(i)));
            else
                QVERIFY2(std::abs(got[i] - expected[i]) <= 1e-12 * std::max(1.0, std::abs(expected[i])),
                         qPrintable(QStringLiteral("%1: %2 vs %3").arg(i).arg(got[i]).arg(expected[i])));
        }
    }

    void thinLargeKeepsExtremes() {
        const int n = 100000;
        QVector<double> x(n), y(n);
        for (int i = 0; i < n; ++i) {
            x[i] = i;
            y[i] = std::sin(i * 0.001) + 0.1 * std::sin(i * 1.7);
        }
        y[31337] = -5; // spikes a plain stride would miss
        y[77777] = 9;
        const QVector<int> idx = thinIndices(x, y, 0, n - 1, 500);
        QVERIFY2(idx.size() <= 2000, qPrintable(QString::number(idx.size())));
        QVERIFY(idx.size() >= 500);
        QVERIFY(std::is_sorted(idx.cbegin(), idx.cend()));
        QVERIFY(std::adjacent_find(idx.cbegin(), idx.cend()) == idx.cend());
        QCOMPARE(idx.first(), 0);
        QCOMPARE(idx.last(), n - 1);
        QVERIFY(idx.contains(31337));
        QVERIFY(idx.contains(77777));
    }

    void thinSmallAndNeighbours() {
        QVector<double> x, y;
        for (int i = 0; i < 100; ++i) {
            x.append(i);
            y.append(i % 7);
        }
        QCOMPARE(thinIndices(x.mid(0, 10), y.mid(0, 10), 0, 9, 5),
                 (QVector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        // In range: 11..20, plus the nearest point on each side.
        QCOMPARE(thinIndices(x, y, 10.5, 20.5, 100),
                 (QVector<int>{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}));
        QVector<double> bx(100000), by(100000);
        for (int i = 0; i < bx.size(); ++i)
            bx[i] = by[i] = i;
        const QVector<int> thinned = thinIndices(bx, by, 1000, 2000, 10);
        QCOMPARE(thinned.first(), 999);
        QCOMPARE(thinned.last(), 2001);
        QVERIFY(thinned.size() <= 4 * 10 + 2);
    }

    void niceRange_data() {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<double>("niceLo");
        QTest::addColumn<double>("niceHi");
        QTest::addColumn<double>("step");
        QTest::newRow("accuracy") << 0.0 << 0.93 << 0.0 << 1.0 << 0.2;
        QTest::newRow("steps on a tick") << 0.0 << 100000.0 << 0.0 << 100000.0 << 20000.0;
        QTest::newRow("loss band") << 0.37 << 2.31 << 0.0 << 2.5 << 0.5;
        QTest::newRow("negative") << -3.2 << 7.9 << -5.0 << 10.0 << 2.5; // 11.1 / 5 -> 2.5
        QTest::newRow("flat") << 5.0 << 5.0 << 4.4 << 5.6 << 0.2; // padded to 4.5 .. 5.5 first
    }

    void niceRange() {
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(double, niceLo);
        QFETCH(double, niceHi);
        QFETCH(double, step);
        const NiceRange r = synaptic::ui::niceRange(lo, hi);
        QCOMPARE(r.lo, niceLo);
        QCOMPARE(r.hi, niceHi);
        QCOMPARE(r.step, step);
    }

    void flushThinsToPlotWidth() {
        TimeSeriesChart chart(QStringLiteral("Loss"));
        const int axis = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        showChart(chart);
        const int n = 100000;
        // Steps up to 90k so 25 more points still fit the followed range (0 .. 100k).
        for (int i = 0; i < n; ++i)
            chart.addPoint(QStringLiteral("loss"), axis, sample(i * 0.9, 2 + std::sin(i * 0.01)), true);
        QCOMPARE(chart.drawnPointCount(QStringLiteral("loss")), 0); // buffered until flush
        QElapsedTimer timer;
        timer.start();
        chart.flush();
        const qint64 firstNs = timer.nsecsElapsed();
        QCOMPARE(chart.rawPointCount(QStringLiteral("loss")), n);
        const double plotWidth = chart.chart()->plotArea().width();
        const qsizetype drawn = chart.drawnPointCount(QStringLiteral("loss"));
        // Thinned to a bucket per four pixels (first/min/max/last each).
        QVERIFY2(drawn <= plotWidth + 2 && drawn >= plotWidth / 4,
                 qPrintable(QStringLiteral("%1 drawn for %2 px").arg(drawn).arg(plotWidth)));

        timer.restart();
        chart.flush();
        const qint64 idleNs = timer.nsecsElapsed();
        for (int i = n; i < n + 25; ++i)
            chart.addPoint(QStringLiteral("loss"), axis, sample(i * 0.9, 2), true);
        timer.restart();
        chart.flush();
        const qint64 liveNs = timer.nsecsElapsed();
        chart.setSmoothing(0.9);
        timer.restart();
        chart.zoomX(0, n); // raw + smoothed rebuilt
        const qint64 smoothNs = timer.nsecsElapsed();
        qDebug("flush, 100k points, plot %.0f px: first %.2f ms, idle %.4f ms, +25 points %.2f ms, "
               "raw+smoothed %.2f ms; drawn %lld",
               plotWidth, firstNs / 1e6, idleNs / 1e6, liveNs / 1e6, smoothNs / 1e6, qint64(drawn));
    }

    void xAxisKind_data() {
        QTest::addColumn<XAxisKind>("kind");
        QTest::addColumn<double>("scale");
        QTest::addColumn<QString>("title");
        QTest::newRow("steps") << XAxisKind::Steps << 1.0 << "steps";
        QTest::newRow("virtual") << XAxisKind::VirtualSeconds << 0.01 << "virtual time (s)";
        QTest::newRow("wall") << XAxisKind::WallSeconds << 0.02 << "wall time (s)";
    }

    void xAxisKind() {
        QFETCH(XAxisKind, kind);
        QFETCH(double, scale);
        QFETCH(QString, title);
        TimeSeriesChart chart(QStringLiteral("Accuracy"));
        const int axis = chart.addValueAxis(QStringLiteral("test accuracy (fraction)"),
                                            Qt::AlignRight, 0, 1);
        for (int i = 0; i < 10; ++i)
            chart.addPoint(QStringLiteral("acc"), axis, sample(i * 100, 0.1 * i));
        chart.flush();
        chart.setXAxisKind(kind);
        QCOMPARE(chart.xAxisKind(), kind);
        QCOMPARE(xAxis(chart)->titleText(), title);
        const QList<QPointF> points = chart.drawnPoints(QStringLiteral("acc"));
        QCOMPARE(points.size(), 10);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(points[i], QPointF(i * 100 * scale, 0.1 * i));
        QVERIFY(chart.visibleXRange().second >= 900 * scale);
    }

    void zoomHoldsWhileDataArrives() {
        TimeSeriesChart chart(QStringLiteral("Loss"));
        const int axis = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        showChart(chart);
        QSignalSpy zoomSpy(&chart, &TimeSeriesChart::zoomChanged);
        for (int i = 0; i < 1000; ++i)
            chart.addPoint(QStringLiteral("loss"), axis, sample(i, i % 10));
        chart.flush();
        QVERIFY(!chart.isZoomed());
        QVERIFY(chart.visibleXRange().first <= 0 && chart.visibleXRange().second >= 999);
        chart.zoomX(100, 200);
        QVERIFY(chart.isZoomed());
        QCOMPARE(zoomSpy.count(), 1);
        for (int i = 1000; i < 2000; ++i)
            chart.addPoint(QStringLiteral("loss"), axis, sample(i, i % 10));
        chart.flush();
        QCOMPARE(chart.visibleXRange(), qMakePair(100.0, 200.0));
        QCOMPARE(xAxis(chart)->min(), 100.0);
        for (const QPointF &p : chart.drawnPoints(QStringLiteral("loss")))
            QVERIFY(p.x() >= 99 && p.x() <= 201); // the range plus one neighbour each side

        chart.resetZoom();
        QVERIFY(!chart.isZoomed());
        QCOMPARE(zoomSpy.count(), 2);
        QVERIFY(chart.visibleXRange().second >= 1999);
        chart.addPoint(QStringLiteral("loss"), axis, sample(5000, 1));
        chart.flush();
        QVERIFY(chart.visibleXRange().second >= 5000);
    }

    void panAndKeys() {
        TimeSeriesChart chart(QStringLiteral("Loss"));
        const int axis = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        showChart(chart);
        for (int i = 0; i < 1000; ++i)
            chart.addPoint(QStringLiteral("loss"), axis, sample(i, 1));
        chart.flush();
        chart.zoomX(100, 200);
        chart.pan(0.5);
        QCOMPARE(chart.visibleXRange(), qMakePair(150.0, 250.0));
        QTest::keyClick(&chart, Qt::Key_Right);
        QCOMPARE(chart.visibleXRange(), qMakePair(160.0, 260.0));
        QTest::keyClick(&chart, Qt::Key_Left);
        QCOMPARE(chart.visibleXRange(), qMakePair(150.0, 250.0));

        // Middle-drag by a tenth of the plot to the right shows what lay to the left.
        const QRectF plot = chart.chart()->plotArea();
        const QPoint start = plot.center().toPoint();
        const int dx = int(plot.width() / 10);
        QTest::mousePress(chart.viewport(), Qt::MiddleButton, {}, start);
        QTest::mouseMove(chart.viewport(), start + QPoint(dx, 0));
        QTest::mouseRelease(chart.viewport(), Qt::MiddleButton, {}, start + QPoint(dx, 0));
        const double shift = 100.0 * dx / plot.width();
        QVERIFY(std::abs(chart.visibleXRange().first - (150 - shift)) < 1e-6);

        QTest::keyClick(&chart, Qt::Key_Home);
        QVERIFY(!chart.isZoomed());
    }

    void wheelAndRubberBand() {
        TimeSeriesChart chart(QStringLiteral("Loss"));
        const int axis = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        showChart(chart);
        for (int i = 0; i <= 1000; ++i)
            chart.addPoint(QStringLiteral("loss"), axis, sample(i, i % 10));
        chart.flush();
        const auto [lo, hi] = chart.visibleXRange();
        const QRectF plot = chart.chart()->plotArea();
        const QPointF at(plot.left() + plot.width() / 4, plot.center().y());
        const double xAt = lo + (hi - lo) / 4;
        QWheelEvent wheel(at, chart.viewport()->mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chart.viewport(), &wheel);
        QVERIFY(chart.isZoomed());
        const auto [wLo, wHi] = chart.visibleXRange();
        QVERIFY(wHi - wLo < hi - lo);
        QVERIFY(std::abs((wLo + (wHi - wLo) / 4) - xAt) < 1e-6 * (hi - lo)); // cursor value fixed

        chart.resetZoom();
        const QPoint from(int(plot.left() + plot.width() * 0.2), int(plot.center().y()));
        const QPoint to(int(plot.left() + plot.width() * 0.4), int(plot.center().y()));
        QTest::mousePress(chart.viewport(), Qt::LeftButton, {}, from);
        QTest::mouseMove(chart.viewport(), to);
        QTest::mouseRelease(chart.viewport(), Qt::LeftButton, {}, to);
        QVERIFY(chart.isZoomed());
        const auto [bLo, bHi] = chart.visibleXRange();
        QVERIFY2(std::abs(bLo - (lo + 0.2 * (hi - lo))) < 0.01 * (hi - lo) &&
                     std::abs(bHi - (lo + 0.4 * (hi - lo))) < 0.01 * (hi - lo),
                 qPrintable(QStringLiteral("%1..%2").arg(bLo).arg(bHi)));
        QCOMPARE(xAxis(chart)->min(), bLo);
        QTest::mouseDClick(chart.viewport(), Qt::LeftButton, {}, from);
        QVERIFY(!chart.isZoomed());
    }

    void yAxesFollowVisibleData() {
        TimeSeriesChart chart(QStringLiteral("Training"));
        const int loss = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        const int acc = chart.addValueAxis(QStringLiteral("accuracy (fraction)"), Qt::AlignRight, 0, 1);
        for (int i = 0; i < 1000; ++i) {
            chart.addPoint(QStringLiteral("loss"), loss, sample(i, 10.0 - i / 100.0), true);
            chart.addPoint(QStringLiteral("acc"), acc, sample(i, 0.4 + i / 5000.0));
        }
        chart.flush();
        auto *lossAxis = static_cast<QValueAxis *>(chart.chart()->axes(Qt::Vertical)[0]);
        auto *accAxis = static_cast<QValueAxis *>(chart.chart()->axes(Qt::Vertical)[1]);
        QVERIFY(lossAxis->min() <= 0.01 && lossAxis->max() >= 10);
        QCOMPARE(accAxis->min(), 0.0);
        QCOMPARE(accAxis->max(), 1.0);
        chart.zoomX(500, 600); // loss there: 4 .. 5
        QVERIFY2(lossAxis->min() >= 3 && lossAxis->min() <= 4 && lossAxis->max() >= 5 &&
                     lossAxis->max() <= 6,
                 qPrintable(QStringLiteral("%1..%2").arg(lossAxis->min()).arg(lossAxis->max())));
        QCOMPARE(accAxis->max(), 1.0);
    }

    void smoothingStylesAndLegend() {
        TimeSeriesChart chart(QStringLiteral("Training"));
        const int axis = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        showChart(chart); // legend markers only count as visible in a shown chart
        QVector<double> values;
        for (int i = 0; i < 300; ++i) {
            values.append(std::sin(i * 0.3) + i * 0.01);
            chart.addPoint(QStringLiteral("a"), axis, sample(i, values.last()));
            chart.addPoint(QStringLiteral("b"), axis, sample(i, 1));
        }
        chart.flush();
        QCOMPARE(chart.seriesNames(), (QStringList{"a", "b"}));
        QCOMPARE(chart.smoothedValues(QStringLiteral("a")), values);
        QCOMPARE(visibleMarkers(chart), 2);
        chart.setSmoothing(0.6);
        for (int i = 300; i < 320; ++i) { // smoothed incrementally from here on
            values.append(i * 0.01);
            chart.addPoint(QStringLiteral("a"), axis, sample(i, values.last()));
        }
        chart.flush();
        const QVector<double> expected = synaptic::ui::emaSmooth(values, 0.6);
        const QVector<double> got = chart.smoothedValues(QStringLiteral("a"));
        QCOMPARE(got.size(), expected.size());
        for (qsizetype i = 0; i < got.size(); ++i)
            QVERIFY(std::abs(got[i] - expected[i]) < 1e-12);
        const QList<QLineSeries *> a = lines(chart, QStringLiteral("a"));
        QCOMPARE(a.size(), 2);
        QVERIFY(a[1]->isVisible());
        QCOMPARE(a[1]->count(), 320);
        QCOMPARE(a[0]->pen().color().rgb(), a[1]->pen().color().rgb()); // one colour per series
        QVERIFY(std::abs(a[0]->pen().color().alphaF() - 0.25) < 0.01);
        QCOMPARE(a[1]->pen().color().alphaF(), 1.0f);
        QVERIFY(a[0]->pen().color().rgb() != lines(chart, QStringLiteral("b"))[0]->pen().color().rgb());
        QCOMPARE(visibleMarkers(chart), 2); // each series once
        for (QLegendMarker *m : chart.chart()->legend()->markers(a[0]))
            QVERIFY(!m->isVisible()); // the faint raw line is not named twice

        chart.setHighlighted(QStringLiteral("B"));
        QVERIFY(a[1]->pen().color().alphaF() < 0.5);
        QCOMPARE(lines(chart, QStringLiteral("b"))[1]->pen().color().alphaF(), 1.0f);
        chart.setChartTheme(QChart::ChartThemeDark); // must not undo our pens
        QVERIFY(a[1]->pen().color().alphaF() < 0.5);
        QCOMPARE(visibleMarkers(chart), 2);

        chart.setSmoothing(0);
        QVERIFY(!a[1]->isVisible());
        QCOMPARE(visibleMarkers(chart), 2);
        chart.clear();
        QVERIFY(chart.seriesNames().isEmpty());
        QCOMPARE(chart.rawPointCount(QStringLiteral("a")), 0);
        QVERIFY(chart.chart()->series().isEmpty());
    }

    void exportCsvVisibleRange() {
        TimeSeriesChart chart(QStringLiteral("Training"));
        const int axis = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        for (int i = 0; i < 1000; ++i) {
            chart.addPoint(QStringLiteral("loss, edge 1"), axis, sample(i, i * 0.5));
            chart.addPoint(QStringLiteral("acc"), axis, sample(i * 2, 1));
        }
        chart.setSmoothing(0.5);
        chart.zoomX(100, 200);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("visible.csv"));
        QCOMPARE(chart.exportCsv(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList rows = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.first(), QStringLiteral("series,steps,virtual_s,wall_s,value,smoothed"));
        QCOMPARE(rows.size(), 1 + 101 + 51); // steps 100..200; acc every 2 steps
        const QVector<double> smoothed = chart.smoothedValues(QStringLiteral("loss, edge 1"));
        for (const QString &row : rows.mid(1, 101)) {
            QVERIFY(row.startsWith(QStringLiteral("\"loss, edge 1\",")));
            const QStringList f = row.mid(row.indexOf(QLatin1String("\",")) + 2).split(',');
            QCOMPARE(f.size(), 5);
            const double step = f[0].toDouble();
            QVERIFY(step >= 100 && step <= 200);
            QCOMPARE(f[1].toDouble(), step * 0.01);
            QCOMPARE(f[3].toDouble(), step * 0.5);
            QCOMPARE(f[4].toDouble(), smoothed[int(step)]);
        }
        QVERIFY(rows[102].startsWith(QStringLiteral("acc,100,")));
    }

    void exportImages() {
        TimeSeriesChart chart(QStringLiteral("Training"));
        const int axis = chart.addValueAxis(QStringLiteral("loss (nats)"), Qt::AlignLeft);
        showChart(chart);
        for (int i = 0; i < 100; ++i)
            chart.addPoint(QStringLiteral("loss"), axis, sample(i, 1.0 / (i + 1)));
        chart.flush();
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("chart.png"));
        QCOMPARE(chart.exportPng(png), QString());
        const QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), chart.size() * chart.devicePixelRatio());
        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QCOMPARE(chart.exportSvg(svg), QString());
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.startsWith("<?xml"));
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("<path") || text.contains("<polyline"));
    }

    void exportBadPath_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("csv") << QStringLiteral("/nonexistent/dir/x.csv");
        QTest::newRow("png") << QStringLiteral("/nonexistent/dir/x.png");
        QTest::newRow("svg") << QStringLiteral("/nonexistent/dir/x.svg");
    }

    void exportBadPath() {
        QFETCH(QString, path);
        TimeSeriesChart chart(QStringLiteral("Training"));
        chart.addPoint(QStringLiteral("loss"), -1, sample(1, 1));
        chart.flush();
        const QString suffix = path.section('.', -1);
        const QString error = suffix == "csv" ? chart.exportCsv(path)
                              : suffix == "png" ? chart.exportPng(path)
                                                : chart.exportSvg(path);
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY(!QFile::exists(path));
    }

    void panelControlsAndPlaceholder() {
        auto *chart = new TimeSeriesChart(QStringLiteral("Inference"));
        ChartPanel panel(chart);
        showChart(panel);
        QCOMPARE(panel.chart(), chart);
        QVERIFY(chart->isVisible());

        panel.findChild<QSlider *>()->setValue(60);
        QCOMPARE(chart->smoothing(), 0.6);
        auto *combo = panel.findChild<QComboBox *>();
        combo->setCurrentIndex(combo->findData(int(XAxisKind::WallSeconds)));
        QCOMPARE(chart->xAxisKind(), XAxisKind::WallSeconds);
        QToolButton *reset = nullptr;
        for (QToolButton *b : panel.findChildren<QToolButton *>())
            if (b->text() == QStringLiteral("Reset zoom"))
                reset = b;
        QVERIFY(reset && !reset->isEnabled());
        chart->zoomX(1, 2);
        QVERIFY(reset->isEnabled());
        reset->click();
        QVERIFY(!chart->isZoomed());

        const QString text = QStringLiteral("Inference charts appear once the inference engine runs");
        panel.setPlaceholder(text);
        QVERIFY(!chart->isVisible());
        bool shown = false;
        for (QLabel *l : panel.findChildren<QLabel *>())
            shown |= l->isVisible() && l->text() == text;
        QVERIFY(shown);
        panel.setPlaceholder(QString());
        QVERIFY(chart->isVisible());
    }

    void budgetedFlushDrawsEverySeriesInTurn() {
        TimeSeriesChart chart(QStringLiteral("budget"));
        chart.resize(640, 400);
        const int axis = chart.addValueAxis(QStringLiteral("v (units)"), Qt::AlignLeft);
        const QStringList names{"a", "b", "c", "d", "e", "f"};
        for (const QString &n : names)
            for (int i = 0; i < 50000; ++i)
                chart.addPoint(n, axis, SamplePoint{double(i), double(i), double(i), std::sin(i * 0.01)});
        QVERIFY(!chart.flush(0.0)); // no time at all: nothing drawn, work left
        int undrawn = 0;
        for (const QString &n : names)
            undrawn += chart.drawnPointCount(n) == 0;
        QCOMPARE(undrawn, int(names.size()));
        int flushes = 1;
        while (!chart.flush(0.001) && flushes < 100) // a sliver of time: one series per flush
            ++flushes;
        QVERIFY2(flushes >= 3 && flushes < 100, qPrintable(QString::number(flushes)));
        for (const QString &n : names)
            QVERIFY(chart.drawnPointCount(n) > 0);
        QVERIFY(chart.flush()); // nothing left
    }
};

QTEST_MAIN(TestTimeSeriesChart)
#include "tst_time_series_chart.moc"
