#include "strategy_comparison_chart.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPen>
#include <QSaveFile>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace synaptic::ui {

namespace {

constexpr int kChartWidth = 800;
constexpr int kChartHeight = 700;
constexpr int kTitleHeight = 50;
// Below this many points a curve also gets markers, so a reader sees where
// the evaluations were and does not mistake the straight segments for data.
constexpr int kMarkerMaxPoints = 40;
constexpr double kBytesPerMegabyte = 1e6;

// Distinct on white and for the common colour-vision deficiencies: the
// Okabe-Ito eight, then two of Paul Tol's for a ninth and tenth series.
const QColor kStrategyPalette[] = {QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x9e, 0x73),
                           QColor(0xcc, 0x79, 0xa7), QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                           QColor(0x00, 0x00, 0x00), QColor(0xf0, 0xe4, 0x42), QColor(0x88, 0x22, 0x55),
                           QColor(0x99, 0x99, 0x33)};

struct Range {
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    void add(double v) {
        min = std::min(min, v);
        max = std::max(max, v);
    }
    bool empty() const { return min > max; }
};

// Whole decades around the data, so a log axis begins and ends on a label.
Range decades(const Range &r) {
    Range d{std::pow(10.0, std::floor(std::log10(r.min))), std::pow(10.0, std::ceil(std::log10(r.max)))};
    if (d.max <= d.min)
        d.max = d.min * 10;
    return d;
}

QChart *newChart(const QString &title) {
    auto *chart = new QChart;
    chart->setTheme(QChart::ChartThemeLight);
    chart->setTitle(title);
    QFont titleFont = chart->titleFont();
    titleFont.setPointSizeF(13);
    titleFont.setBold(true);
    chart->setTitleFont(titleFont);
    // On the right, one entry per line: at the bottom, seven strategy and
    // codec names share one row and Qt elides them to "param_...".
    chart->legend()->setAlignment(Qt::AlignRight);
    // Shows the dashed target line as a dashed line, not as a filled box.
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    return chart;
}

void styleAxis(QAbstractAxis *axis, const QString &title) {
    axis->setTitleText(title);
    QFont font = axis->titleFont();
    font.setPointSizeF(11);
    font.setBold(false);
    axis->setTitleFont(font);
}

QLogValueAxis *logAxis(const QString &title, const Range &range) {
    auto *axis = new QLogValueAxis;
    styleAxis(axis, title);
    axis->setBase(10);
    axis->setLabelFormat("%g");
    // A hair wider than the decades: QLogValueAxis rounds log10(0.1) to just
    // above -1 and would drop the first label.
    const Range d = decades(range);
    axis->setRange(d.min * (1 - 1e-9), d.max * (1 + 1e-9));
    // The 2..9 subdivisions, without which a decade is one blank band; over
    // many decades they would merge into a grey wash instead.
    axis->setMinorTickCount(std::log10(d.max / d.min) <= 4.5 ? 8 : 0);
    return axis;
}

QLineSeries *addCurve(QChart *chart, const QString &name, const QColor &color, const QList<QPointF> &points,
                      QAbstractAxis *x, QAbstractAxis *y) {
    auto *series = new QLineSeries;
    series->setName(name);
    series->setPen(QPen(color, 2.5));
    series->setColor(color);
    series->setPointsVisible(points.size() <= kMarkerMaxPoints);
    series->replace(points);
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    return series;
}

QChart *accuracyChart(const QVector<StrategyCurve> &curves, const Range &time, double target) {
    QChart *chart = newChart("Test accuracy over virtual time");
    QLogValueAxis *x = logAxis("virtual time (s, log scale)", time);
    auto *y = new QValueAxis;
    styleAxis(y, "test accuracy (fraction)");
    y->setLabelFormat("%.2f");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    // Zoom to the lowest plotted accuracy (and the target) in steps of 0.1,
    // so the last percent before the target stays readable.
    double low = target;
    for (qsizetype i = 0; i < curves.size(); ++i) {
        QList<QPointF> points;
        for (const StrategyCurvePoint &p : curves[i].points) {
            if (p.virtualSeconds > 0) {
                points.append(QPointF(p.virtualSeconds, p.accuracy));
                low = std::min(low, p.accuracy);
            }
        }
        addCurve(chart, curves[i].name, kStrategyPalette[i % std::size(kStrategyPalette)], points, x, y);
    }
    low = std::clamp(std::floor(low * 10 - 1e-9) / 10, 0.0, 0.9);
    y->setRange(low, 1.0);
    y->setTickCount(int(std::lround((1.0 - low) / (1.0 - low <= 0.5 ? 0.05 : 0.1))) + 1);

    auto *line = new QLineSeries;
    line->setName(QString("target %1").arg(target, 0, 'g', 3));
    line->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.5, Qt::DashLine));
    const Range xRange = decades(time);
    line->append(xRange.min, target);
    line->append(xRange.max, target);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    return chart;
}

// Accuracy against what it cost on the WAN (issue 14): each curve is one
// run's evaluations, so its last point is where the run ended and the
// upper-left envelope of the end points is the accuracy-vs-bytes front.
QChart *wanChart(const QVector<StrategyCurve> &curves, double target) {
    QChart *chart = newChart("Test accuracy against cumulative WAN traffic");
    Range bytes;
    double low = target;
    QVector<QList<QPointF>> series(curves.size());
    for (qsizetype i = 0; i < curves.size(); ++i) {
        for (const StrategyCurvePoint &p : curves[i].points) {
            if (p.virtualSeconds > 0 && p.wanBytes > 0) {
                series[i].append(QPointF(p.wanBytes / kBytesPerMegabyte, p.accuracy));
                bytes.add(p.wanBytes / kBytesPerMegabyte);
                low = std::min(low, p.accuracy);
            }
        }
    }
    if (bytes.empty())
        bytes = Range{0.1, 1};
    QLogValueAxis *x = logAxis("cumulative WAN traffic (MB, log scale)", bytes);
    auto *y = new QValueAxis;
    styleAxis(y, "test accuracy (fraction)");
    y->setLabelFormat("%.2f");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (qsizetype i = 0; i < curves.size(); ++i)
        addCurve(chart, curves[i].name, kStrategyPalette[i % std::size(kStrategyPalette)], series[i], x, y);
    low = std::clamp(std::floor(low * 10 - 1e-9) / 10, 0.0, 0.9);
    y->setRange(low, 1.0);
    y->setTickCount(int(std::lround((1.0 - low) / (1.0 - low <= 0.5 ? 0.05 : 0.1))) + 1);
    return chart;
}

bool fail(QString *error, const QString &message) {
    if (error)
        *error = message;
    return false;
}

} // namespace

bool renderStrategyComparison(const QVector<StrategyCurve> &curves, double targetAccuracy, const QString &title,
                              const QString &pngPath, QString *error) {
    Range time;
    for (const StrategyCurve &c : curves)
        for (const StrategyCurvePoint &p : c.points)
            if (p.virtualSeconds > 0)
                time.add(p.virtualSeconds);
    if (time.empty())
        return fail(error, "no curve point has virtual_seconds > 0, nothing to plot on a log time axis");

    // The scene owns both charts; no view is needed to render a scene.
    QGraphicsScene scene;
    QChart *left = accuracyChart(curves, time, targetAccuracy);
    QChart *right = wanChart(curves, targetAccuracy);
    scene.addItem(left);
    scene.addItem(right);
    left->setGeometry(0, 0, kChartWidth, kChartHeight);
    right->setGeometry(kChartWidth, 0, kChartWidth, kChartHeight);
    // Layout is normally deferred to the event loop, which never runs here.
    left->layout()->activate();
    right->layout()->activate();

    QImage image(2 * kChartWidth, kTitleHeight + kChartHeight, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::TextAntialiasing);
        QFont font = painter.font();
        font.setPointSizeF(16);
        font.setBold(true);
        painter.setFont(font);
        painter.drawText(QRect(0, 0, image.width(), kTitleHeight), Qt::AlignCenter, title);
        scene.render(&painter, QRectF(0, kTitleHeight, 2 * kChartWidth, kChartHeight),
                     QRectF(0, 0, 2 * kChartWidth, kChartHeight));
    }

    QSaveFile file(pngPath);
    if (!file.open(QIODevice::WriteOnly))
        return fail(error, QString("cannot write %1: %2").arg(pngPath, file.errorString()));
    if (!image.save(&file, "PNG"))
        return fail(error, QString("cannot encode PNG for %1").arg(pngPath));
    if (!file.commit())
        return fail(error, QString("cannot write %1: %2").arg(pngPath, file.errorString()));
    return true;
}

} // namespace synaptic::ui
