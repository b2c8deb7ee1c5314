#include "chart_feeder.h"

#include "ui/charts/time_series_chart.h"

#include <QElapsedTimer>

#include <cmath>
#include <limits>

namespace synaptic::ui {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMB = 1e6;
} // namespace

ChartFeeder::ChartFeeder(TimeSeriesChart *training, TimeSeriesChart *drift, TimeSeriesChart *bandwidth,
                         TimeSeriesChart *inference)
    : m_training(training), m_drift(drift), m_bandwidth(bandwidth), m_inference(inference) {
    if (m_inference) {
        m_shareAxis = inference->addValueAxis(QObject::tr("share, accuracy (fraction)"), Qt::AlignLeft, 0.0, 1.0);
        m_latencyAxis = inference->addValueAxis(QObject::tr("latency (ms, virtual)"), Qt::AlignRight, 0.0);
    }
    m_accuracyAxis = training->addValueAxis(QObject::tr("test accuracy (fraction)"), Qt::AlignLeft, kNaN, 1.0);
    m_lossAxis = training->addValueAxis(QObject::tr("training loss (cross-entropy)"), Qt::AlignRight, 0.0);
    m_lagAxis = drift->addValueAxis(QObject::tr("worst version lag (updates)"), Qt::AlignLeft, 0.0);
    m_driftAxis = drift->addValueAxis(QObject::tr("worst parameter drift (relative L2)"), Qt::AlignRight, 0.0);
    m_rateAxis = bandwidth->addValueAxis(QObject::tr("traffic (MB/s, virtual)"), Qt::AlignLeft, 0.0);
}

void ChartFeeder::setTopology(const QStringList &edgeNames, const QVector<int> &regionOfEdge,
                              const QStringList &regionNames, int batchSize) {
    m_edgeNames = edgeNames;
    m_regionOfEdge = regionOfEdge;
    m_regionNames = regionNames;
    m_batchSize = std::max(1, batchSize);
    m_lagNames.clear();
    m_driftNames.clear();
    m_wanOutNames.clear();
    m_wanInNames.clear();
    m_intoCenter = QObject::tr("into center");
    m_outOfCenter = QObject::tr("out of center");
    m_rateAxisOf.insert(m_intoCenter, m_rateAxis);
    m_rateAxisOf.insert(m_outOfCenter, m_rateAxis);
    for (const auto &region : regionNames) {
        m_wanOutNames << QObject::tr("WAN out of %1").arg(region);
        m_wanInNames << QObject::tr("WAN into %1").arg(region);
        m_rateAxisOf.insert(m_wanOutNames.back(), m_rateAxis);
        m_rateAxisOf.insert(m_wanInNames.back(), m_rateAxis);
        m_lagNames << QObject::tr("lag %1").arg(region);
        m_driftNames << QObject::tr("drift %1").arg(region);
        m_driftAxisOf.insert(m_lagNames.back(), m_lagAxis);
        m_driftAxisOf.insert(m_driftNames.back(), m_driftAxis);
    }
}

void ChartFeeder::setFocusEdge(int edge) { m_focusEdge = edge; }

QString ChartFeeder::nodeName(int node, const QStringList &edgeNames) {
    return node == 0 ? QObject::tr("center") : edgeNames.value(node - 1, QString::number(node));
}

int ChartFeeder::regionOfNode(int node) const { return node == 0 ? -1 : m_regionOfEdge.value(node - 1, -1); }

// Steps per edge: what `--steps` counts, comparable across cluster sizes.
double ChartFeeder::stepsOf(std::uint64_t samples) const {
    const int edges = std::max<int>(1, int(m_edgeNames.size()));
    return double(samples) / double(m_batchSize) / edges;
}

void ChartFeeder::add(const engine::SimEvent &event, std::uint64_t samples, double wallSeconds) {
    if (const auto *m = std::get_if<engine::MetricEvent>(&event))
        addMetric(*m, wallSeconds);
    else if (const auto *d = std::get_if<engine::DriftEvent>(&event))
        addDrift(*d, stepsOf(samples), wallSeconds);
    else if (const auto *b = std::get_if<engine::LinkBytesEvent>(&event))
        addBytes(*b, stepsOf(samples), wallSeconds);
    else if (const auto *i = std::get_if<engine::InferenceEvent>(&event))
        addInference(*i, stepsOf(samples), wallSeconds);
}

void ChartFeeder::addInference(const engine::InferenceEvent &i, double steps, double wall) {
    SamplePoint p;
    p.steps = steps;
    p.virtualSeconds = i.time;
    p.wallSeconds = wall;
    auto put = [&](TimeSeriesChart *chart, const QString &name, int axis, double value, bool dashed = false) {
        if (!std::isfinite(value))
            return;
        p.value = value;
        chart->addPoint(name, axis, p, dashed);
    };
    // Serving bytes per second against the raw images' (the bandwidth chart).
    if (i.interval > 0) {
        put(m_bandwidth, QObject::tr("serving: features to center"), m_rateAxis, double(i.bytesToCenter) / i.interval / kMB);
        put(m_bandwidth, QObject::tr("serving: raw images (if sent)"), m_rateAxis,
            double(i.rawInputBytes) / i.interval / kMB, true);
    }
    // A recording may hold inconsistent counts: skip rather than wrap around.
    if (!m_inference || i.requests == 0 || i.atEdge > i.requests || i.degraded > i.requests ||
        i.correctEdge > i.atEdge || i.correctCenter > i.requests - i.atEdge)
        return;
    const double n = double(i.requests);
    const double atCenter = double(i.requests - i.atEdge);
    put(m_inference, QObject::tr("at edge"), m_shareAxis, double(i.atEdge) / n);
    put(m_inference, QObject::tr("acc all"), m_shareAxis, double(i.correctEdge + i.correctCenter) / n);
    if (i.atEdge > 0)
        put(m_inference, QObject::tr("acc edge"), m_shareAxis, double(i.correctEdge) / double(i.atEdge));
    if (atCenter > 0)
        put(m_inference, QObject::tr("acc center"), m_shareAxis, double(i.correctCenter) / atCenter);
    put(m_inference, QObject::tr("degraded"), m_shareAxis, double(i.degraded) / n);
    put(m_inference, QObject::tr("p50"), m_latencyAxis, i.p50Ms, true);
    put(m_inference, QObject::tr("p95"), m_latencyAxis, i.p95Ms, true);
    put(m_inference, QObject::tr("p99"), m_latencyAxis, i.p99Ms, true);
}

void ChartFeeder::addMetric(const engine::MetricEvent &m, double wall) {
    const QString scope = QString::fromStdString(m.scope);
    if (scope.endsWith(QLatin1String(":full")))
        return; // the final full-test-set figure is one point, shown in the status bar
    const bool region = scope.startsWith(QLatin1String("region:"));
    const QString who = region ? scope.mid(7) : QObject::tr("global");
    SamplePoint p;
    p.steps = stepsOf(m.samples);
    p.virtualSeconds = m.time;
    p.wallSeconds = wall;
    if (std::isfinite(m.accuracy)) {
        p.value = m.accuracy;
        m_training->addPoint(QObject::tr("acc %1").arg(who), m_accuracyAxis, p);
    }
    if (region && std::isfinite(m.loss)) {
        p.value = m.loss;
        m_training->addPoint(QObject::tr("loss %1").arg(who), m_lossAxis, p, true);
    }
}

void ChartFeeder::addDrift(const engine::DriftEvent &d, double steps, double wall) {
    if (d.time != m_pendingDrift.time)
        emitInstant(m_pendingDrift, m_drift, m_driftAxisOf);
    if (d.region < 0 || d.region >= m_lagNames.size())
        return;
    if (m_pendingLag.size() != m_lagNames.size()) {
        m_pendingLag.fill(-1, m_lagNames.size());
        m_pendingWorstDrift.fill(-1, m_lagNames.size());
    }
    m_pendingDrift.time = d.time;
    m_pendingDrift.steps = steps;
    m_pendingDrift.wall = wall;
    m_pendingLag[d.region] = std::max(m_pendingLag[d.region], double(d.versionLag));
    m_pendingWorstDrift[d.region] = std::max(m_pendingWorstDrift[d.region], d.parameterDrift);
}

void ChartFeeder::addBytes(const engine::LinkBytesEvent &b, double steps, double wall) {
    if (b.time != m_pendingBytes.time)
        emitInstant(m_pendingBytes, m_bandwidth, m_rateAxisOf);
    m_pendingBytes.time = b.time;
    m_pendingBytes.steps = steps;
    m_pendingBytes.wall = wall;
    const double rate = b.interval > 0 ? double(b.bytes) / b.interval / kMB : 0;
    auto &v = m_pendingBytes.values;
    // Names are made once in setTopology(): every edge reports its links every interval.
    auto addTo = [&](const QString &series) { v[series] = v.value(series, 0.0) + rate; };
    if (b.to == 0)
        addTo(m_intoCenter);
    if (b.from == 0)
        addTo(m_outOfCenter);
    // Wide-area traffic: anything that leaves a region (to the center or to another region).
    const int rf = regionOfNode(b.from), rt = regionOfNode(b.to);
    if (rf != rt) {
        if (rf >= 0 && rf < m_wanOutNames.size())
            addTo(m_wanOutNames[rf]);
        if (rt >= 0 && rt < m_wanInNames.size())
            addTo(m_wanInNames[rt]);
    }
    const int focus = m_focusEdge + 1;
    if (m_focusEdge >= 0 && (b.from == focus || b.to == focus)) {
        const int peer = b.from == focus ? b.to : b.from;
        const QString link = QObject::tr("%1 ↔ %2").arg(nodeName(focus, m_edgeNames), nodeName(peer, m_edgeNames));
        m_rateAxisOf.insert(link, m_rateAxis);
        addTo(link);
    }
}

void ChartFeeder::emitInstant(Instant &pending, TimeSeriesChart *chart, const QHash<QString, int> &axisOf) {
    if (pending.time < 0)
        return;
    if (&pending == &m_pendingDrift)
        for (int r = 0; r < m_pendingLag.size(); ++r)
            if (m_pendingLag[r] >= 0) {
                pending.values.insert(m_lagNames[r], m_pendingLag[r]);
                pending.values.insert(m_driftNames[r], m_pendingWorstDrift[r]);
                m_pendingLag[r] = m_pendingWorstDrift[r] = -1;
            }
    const bool dashed = chart == m_drift;
    for (auto it = pending.values.cbegin(); it != pending.values.cend(); ++it) {
        SamplePoint p;
        p.steps = pending.steps;
        p.virtualSeconds = pending.time;
        p.wallSeconds = pending.wall;
        p.value = it.value();
        const int axis = axisOf.value(it.key());
        chart->addPoint(it.key(), axis, p, dashed && axis == m_driftAxis);
    }
    pending = Instant{};
}

void ChartFeeder::flush(double completeBefore) {
    if (m_pendingDrift.time < completeBefore)
        emitInstant(m_pendingDrift, m_drift, m_driftAxisOf);
    if (m_pendingBytes.time < completeBefore)
        emitInstant(m_pendingBytes, m_bandwidth, m_rateAxisOf);
    QElapsedTimer clock;
    clock.start();
    TimeSeriesChart *charts[] = {m_training, m_drift, m_bandwidth, m_inference};
    const int count = m_inference ? 4 : 3;
    for (int k = 0; k < count; ++k) {
        const double left = m_redrawBudgetMs - double(clock.nsecsElapsed()) / 1e6;
        charts[(m_firstChart + k) % count]->flush(std::max(0.0, left));
    }
    m_firstChart = (m_firstChart + 1) % count;
}

void ChartFeeder::clear() {
    m_pendingDrift = Instant{};
    m_pendingLag.fill(-1);
    m_pendingWorstDrift.fill(-1);
    m_pendingBytes = Instant{};
    m_training->clear();
    m_drift->clear();
    m_bandwidth->clear();
    if (m_inference)
        m_inference->clear();
}

} // namespace synaptic::ui
