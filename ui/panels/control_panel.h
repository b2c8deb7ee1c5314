#pragma once

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/link_geography.h"
#include "core/engine/sim/sim_command.h"

#include <QHash>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QDoubleSpinBox;
class QSpinBox;
class QUndoStack;

namespace synaptic::ui {

class HighlightThresholds;

// Live thresholds (issue 4 §6): each edit becomes one command the engine
// applies at its next step boundary, and is an undoable step (undo sends
// the old value back). Also the link editor for a chosen pair of nodes, and
// the routing table's highlight thresholds (view-only edits on the same
// undo stack). GUI thread only.
class ControlPanel : public QWidget {
    Q_OBJECT
public:
    ControlPanel(const engine::ClusterConfig &config, const QStringList &nodeNames, QWidget *parent = nullptr);

    QUndoStack *undoStack() const { return m_undo; }
    QSpinBox *windowBox() const { return m_window; }
    QSpinBox *syncBox() const { return m_sync; }
    QDoubleSpinBox *leaseBox() const { return m_lease; }
    QDoubleSpinBox *heartbeatBox() const { return m_heartbeat; }
    QDoubleSpinBox *confidenceBox() const { return m_confidence; }
    QComboBox *confidenceTarget() const { return m_confidenceFor; } // 0 = all edges, then edges in order
    HighlightThresholds *highlights() const { return m_highlights; }
    // Off in a replay: the knobs and the link editor, which reach an engine.
    // The highlights stay on, since they change only the view.
    void setCommandsEnabled(bool on);
    // The link editor: nodes by index in nodeNames, where the last is the center.
    // Choosing the ends shows that link's values (geography, issue 14): as
    // the config sets them, or as this editor last set them; the label under
    // it says which. With "whole region pair" checked, Apply sets every link
    // between the two ends' regions (or between a region and the center).
    void setLinkEnds(int from, int to);
    void setLinkValues(double latencyMs, double bandwidthMbps, double loss);
    void setWholeRegionPair(bool on);
    void applyLink();
    double latencyMs() const;
    double bandwidthMbps() const;
    QString linkSource() const; // the label: where the shown values come from

Q_SIGNALS:
    void commandRequested(const synaptic::engine::SimCommand &command);

private:
    // Wires a spin box to an undoable knob: `make` turns a value into the command.
    template <typename Box, typename Make>
    void bindKnob(Box *box, Make make);
    int nodeArg(int index) const; // edge index, or -1 for the center
    int engineNode(int index) const { return index == m_nodes - 1 ? 0 : index + 1; }
    void showLinkValues();         // the chosen ends' values into the editor
    QList<QPair<int, int>> linkTargets() const; // (node, nodeB) args of the commands Apply sends

    QUndoStack *m_undo;
    QSpinBox *m_window;
    QSpinBox *m_sync;
    QDoubleSpinBox *m_lease;
    QDoubleSpinBox *m_heartbeat;
    QDoubleSpinBox *m_confidence;
    QComboBox *m_confidenceFor;
    QComboBox *m_from;
    QComboBox *m_to;
    QDoubleSpinBox *m_latency;
    QDoubleSpinBox *m_bandwidth;
    QDoubleSpinBox *m_loss;
    QCheckBox *m_wholePair;
    QLabel *m_linkSource;
    HighlightThresholds *m_highlights;
    QList<QWidget *> m_commandGroups; // what setCommandsEnabled() switches
    engine::LinkGeography m_geography;
    QHash<QPair<int, int>, engine::LinkSpec> m_applied; // engine node pair (low, high) → what Apply sent
    int m_nodes = 0;
};

// Faults (issue 4 §7): kill or revive a node, partition or heal a link or a
// whole region. Each button sends one command.
class FaultPanel : public QWidget {
    Q_OBJECT
public:
    FaultPanel(const QStringList &nodeNames, const QStringList &regionNames, QWidget *parent = nullptr);

    void select(int node, int linkTo, int region);
    void trigger(engine::SimCommand::Kind kind);

Q_SIGNALS:
    void commandRequested(const synaptic::engine::SimCommand &command);

private:
    int nodeArg(int index) const;
    QComboBox *m_node;
    QComboBox *m_linkTo;
    QComboBox *m_region;
    int m_nodes = 0;
};

} // namespace synaptic::ui
