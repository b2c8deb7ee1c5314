#pragma once

#include "core/engine/sim/sim_events.h"

#include <QHash>
#include <QMap>
#include <QStringList>
#include <QVector>

#include <limits>

namespace synaptic::ui {

class TimeSeriesChart;
struct SamplePoint;

// Turns the engine's events into chart points (issue 4 §5): accuracy and
// loss per region and for the global model; worst version lag and parameter
// drift per region at each center sync; bytes per second into and out of the
// center, per region's wide-area traffic, and per link of the focused edge.
// Each point carries all three x coordinates (steps per edge, virtual and
// wall seconds) so the charts can switch axes without the data. Events of
// one instant (a sync's drift rows, an interval's link counters) are folded
// into one point per series. Serving (issue 6) goes to its own chart: edge
// share, accuracy of the edge's, the center's and all answers, degraded
// share and latency percentiles per interval; and to the bandwidth chart:
// features sent to the center against what the raw images would have cost.
// GUI thread only; no Qt Charts code here.
class ChartFeeder {
public:
    ChartFeeder(TimeSeriesChart *training, TimeSeriesChart *drift, TimeSeriesChart *bandwidth,
                TimeSeriesChart *inference = nullptr);

    void setTopology(const QStringList &edgeNames, const QVector<int> &regionOfEdge, const QStringList &regionNames,
                     int batchSize);
    // Links of this edge get their own bandwidth series from now on (-1: none).
    void setFocusEdge(int edge);
    int focusEdge() const { return m_focusEdge; }

    // `samples` is the latest whole-cluster sample count the GUI knows (for
    // events that carry none); `wallSeconds` since the run started.
    void add(const engine::SimEvent &event, std::uint64_t samples, double wallSeconds);
    // Pushes new points to the charts. An instant's points are made once all
    // its events are in: when a later instant starts, or when the engine's
    // clock has passed it (`completeBefore`, virtual seconds; +inf at the end).
    void flush(double completeBefore = std::numeric_limits<double>::infinity());
    // Milliseconds the three charts may spend redrawing per flush, shared;
    // what does not fit is drawn at the next flushes (TimeSeriesChart::flush).
    void setRedrawBudgetMs(double ms) { m_redrawBudgetMs = ms; }
    void clear();

    static QString nodeName(int node, const QStringList &edgeNames); // engine node id → name

private:
    struct Instant {
        double time = -1;
        double steps = 0;
        double wall = 0;
        QMap<QString, double> values; // series → value
    };
    double stepsOf(std::uint64_t samples) const;
    void addMetric(const engine::MetricEvent &m, double wall);
    void addDrift(const engine::DriftEvent &d, double steps, double wall);
    void addBytes(const engine::LinkBytesEvent &b, double steps, double wall);
    void addInference(const engine::InferenceEvent &i, double steps, double wall);
    void emitInstant(Instant &pending, TimeSeriesChart *chart, const QHash<QString, int> &axisOf);
    int regionOfNode(int node) const;

    TimeSeriesChart *m_training;
    TimeSeriesChart *m_drift;
    TimeSeriesChart *m_bandwidth;
    TimeSeriesChart *m_inference;
    int m_accuracyAxis, m_lossAxis, m_lagAxis, m_driftAxis, m_rateAxis;
    int m_shareAxis = -1, m_latencyAxis = -1;
    QHash<QString, int> m_driftAxisOf; // drift series → axis
    QHash<QString, int> m_rateAxisOf;
    QStringList m_edgeNames;
    QStringList m_regionNames;
    QStringList m_lagNames, m_driftNames; // per region, made once: a sync brings shards × regions events
    QStringList m_wanOutNames, m_wanInNames; // per region, made once: link counters come every interval
    QString m_intoCenter, m_outOfCenter;
    QVector<int> m_regionOfEdge;
    int m_batchSize = 1;
    int m_focusEdge = -1;
    double m_redrawBudgetMs = std::numeric_limits<double>::infinity();
    int m_firstChart = 0; // rotates, so no chart starves when the budget runs out
    Instant m_pendingDrift;
    // A sync brings shards × regions drift rows: fold them into arrays, not by series name.
    QVector<double> m_pendingLag, m_pendingWorstDrift; // per region; -1 = no row yet
    Instant m_pendingBytes;
};

} // namespace synaptic::ui
