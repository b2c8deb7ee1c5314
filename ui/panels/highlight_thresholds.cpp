#include "highlight_thresholds.h"

#include "knob_edit.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSettings>
#include <QSpinBox>

#include <cmath>

namespace synaptic::ui {

HighlightThresholds::HighlightThresholds(QUndoStack *undo, QWidget *parent)
    : QGroupBox(tr("Highlights (routing table, applied at once)"), parent), m_drift(new QDoubleSpinBox),
      m_lag(new QSpinBox) {
    // The ranges keep impossible values out, a hand-edited settings file's included:
    // setValue() clamps, and a value that is no number reads as the default.
    const QSettings settings;
    m_drift->setObjectName("drift threshold");
    m_drift->setRange(0, kMaxDrift);
    m_drift->setDecimals(3);
    m_drift->setSingleStep(0.05);
    bool ok = false;
    const double drift = settings.value(kDriftKey, kDefaultDrift).toDouble(&ok);
    m_drift->setValue(ok && std::isfinite(drift) ? drift : kDefaultDrift);
    m_drift->setToolTip(tr("Rows whose parameter drift (‖θ region − θ center‖ / ‖θ center‖) is above this are "
                           "highlighted red"));
    m_lag->setObjectName("version-lag threshold");
    m_lag->setRange(0, kMaxLag);
    m_lag->setSuffix(tr(" versions"));
    const int lag = settings.value(kLagKey, kDefaultLag).toInt(&ok);
    m_lag->setValue(ok ? lag : kDefaultLag);
    m_lag->setToolTip(tr("Rows where some edge's cached copy is more than this many versions behind its region's "
                         "owner are highlighted amber"));
    auto *form = new QFormLayout(this);
    form->addRow(tr("Drift above"), m_drift);
    form->addRow(tr("Version lag above"), m_lag);

    bindKnobEdits(this, undo, m_drift, [this](double) {
        return std::function<void(double)>([this](double v) {
            QSettings().setValue(kDriftKey, v);
            Q_EMIT driftThresholdChanged(v);
        });
    });
    bindKnobEdits(this, undo, m_lag, [this](double) {
        return std::function<void(double)>([this](double v) {
            QSettings().setValue(kLagKey, int(v));
            Q_EMIT lagThresholdChanged(int(v));
        });
    });
}

double HighlightThresholds::driftThreshold() const { return m_drift->value(); }
int HighlightThresholds::lagThreshold() const { return m_lag->value(); }

} // namespace synaptic::ui
