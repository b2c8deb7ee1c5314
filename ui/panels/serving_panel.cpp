#include "serving_panel.h"

#include "ui/charts/sweep_chart.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QVBoxLayout>

namespace synaptic::ui {

ServingPanel::ServingPanel(const QStringList &edgeNames, double threshold, int releaseEverySyncs, QWidget *parent)
    : QWidget(parent), m_edgeNames(edgeNames), m_sweep(new SweepChart), m_status(new QLabel), m_cadence(new QSpinBox) {
    m_sweep->setOperatingThreshold(threshold);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cadence->setObjectName("release cadence");
    m_cadence->setRange(1, 100000);
    m_cadence->setSuffix(tr(" center syncs"));
    m_cadence->setValue(releaseEverySyncs);
    m_cadence->setToolTip(tr("The center ships a new edge image (block 1, exit head, squeeze) every this many center "
                             "syncs: fresher edges against the bytes spent shipping images"));
    connect(m_cadence, &QSpinBox::editingFinished, this, [this] {
        if (m_updatingCadence)
            return;
        engine::SimCommand c;
        c.kind = engine::SimCommand::Kind::SetReleaseCadence;
        c.value = m_cadence->value();
        Q_EMIT commandRequested(c);
    });
    auto *form = new QFormLayout;
    form->addRow(tr("Ship an edge image every"), m_cadence);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_sweep, 1);
    layout->addLayout(form);
    layout->addWidget(m_status);
    updateStatus();
}

void ServingPanel::addImage(const engine::EdgeImageEvent &image) {
    if (image.edge < 0) {
        m_released = image.version;
        m_releasedAt = image.time;
        m_imageBytes = image.bytes;
        m_sweep->setSweep(image.version, QVector<double>(image.sweepThreshold.begin(), image.sweepThreshold.end()),
                          QVector<double>(image.sweepEdgeShare.begin(), image.sweepEdgeShare.end()),
                          QVector<double>(image.sweepAccuracy.begin(), image.sweepAccuracy.end()));
    } else {
        m_edgeVersion[image.edge] = image.version;
        ++m_arrivals;
    }
    updateStatus();
}

void ServingPanel::addInference(const engine::InferenceEvent &i) {
    m_requests += i.requests;
    m_degraded += i.degraded;
    m_atEdge += i.atEdge;
    updateStatus();
}

void ServingPanel::setThreshold(double threshold) { m_sweep->setOperatingThreshold(threshold); }

void ServingPanel::setReleaseCadence(int syncs) {
    m_updatingCadence = true;
    m_cadence->setValue(syncs);
    m_updatingCadence = false;
}

void ServingPanel::setControlsEnabled(bool enabled) { m_cadence->setEnabled(enabled); }

void ServingPanel::clear() {
    m_sweep->clear();
    m_edgeVersion.clear();
    m_released = m_imageBytes = m_arrivals = m_requests = m_degraded = m_atEdge = 0;
    m_releasedAt = 0;
    updateStatus();
}

QString ServingPanel::statusText() const { return m_status->text(); }

void ServingPanel::updateStatus() {
    const QLocale locale;
    int current = 0;
    QStringList versions;
    for (int e = 0; e < m_edgeNames.size(); ++e) {
        const quint64 v = m_edgeVersion.value(e, 0);
        current += v == m_released;
        versions << QStringLiteral("%1 v%2").arg(m_edgeNames[e]).arg(v);
    }
    QString text = tr("Edge image v%1 released at %2 s; %3 of %4 edges serve it.")
                       .arg(m_released)
                       .arg(m_releasedAt, 0, 'f', 2)
                       .arg(current)
                       .arg(m_edgeNames.size());
    text += QLatin1Char(' ') + tr("Image %1 KB; shipped %2 MB in %3 deliveries.")
                                   .arg(locale.toString(double(m_imageBytes) / 1e3, 'f', 1))
                                   .arg(locale.toString(double(m_imageBytes * m_arrivals) / 1e6, 'f', 2))
                                   .arg(m_arrivals);
    if (m_requests > 0)
        text += QLatin1Char(' ') + tr("Served %1 requests, %2 % at the edge, %3 degraded.")
                                       .arg(locale.toString(m_requests))
                                       .arg(100.0 * double(m_atEdge) / double(m_requests), 0, 'f', 1)
                                       .arg(locale.toString(m_degraded));
    text += QStringLiteral("\n") + versions.join(QStringLiteral(" · "));
    m_status->setText(text);
}

} // namespace synaptic::ui
