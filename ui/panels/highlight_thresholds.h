#pragma once

#include <QGroupBox>

class QDoubleSpinBox;
class QSpinBox;
class QUndoStack;

namespace synaptic::ui {

// The "Highlights" group of the control panel (issue 18 §4): the drift and
// version-lag thresholds past which the routing table highlights a row.
// Unlike the engine's knobs these change only the view, so they apply at
// once and are also allowed in a replay. Each committed value is one
// undoable edit on the panel's stack and is persisted in QSettings, so the
// next window opens with the thresholds the operator left. GUI thread only.
class HighlightThresholds : public QGroupBox {
    Q_OBJECT
public:
    static constexpr double kDefaultDrift = 0.5;
    // Owners send every new version to their region's edges, so an edge is
    // normally 0-2 versions behind (versions on their way count); more than
    // 4 means it missed updates (read-only, down, or behind a slow link).
    static constexpr int kDefaultLag = 4;
    static constexpr double kMaxDrift = 100;
    static constexpr int kMaxLag = 1000000;
    static constexpr const char *kDriftKey = "highlights/driftThreshold";
    static constexpr const char *kLagKey = "highlights/lagThreshold";

    explicit HighlightThresholds(QUndoStack *undo, QWidget *parent = nullptr);

    QDoubleSpinBox *driftBox() const { return m_drift; }
    QSpinBox *lagBox() const { return m_lag; }
    double driftThreshold() const;
    int lagThreshold() const;

Q_SIGNALS:
    // On an edit, its undo and its redo.
    void driftThresholdChanged(double threshold);
    void lagThresholdChanged(int versions);

private:
    QDoubleSpinBox *m_drift;
    QSpinBox *m_lag;
};

} // namespace synaptic::ui
