#include "getting_started_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QSettings>
#include <QVBoxLayout>

namespace synaptic::ui {

namespace {
constexpr const char *kSeenKey = "guide/seen";
}

QStringList GettingStartedDialog::steps() {
    return {
        tr("<b>Watch the routing table.</b> The Routing table at the bottom lists every shard: who owns it in "
           "each region, the owners' and the center's versions, how far edge caches lag and how far the regions' "
           "copies drift. It updates as the cluster trains; type in its filter to narrow it."),
        tr("<b>Drag a shard.</b> In the Shard map, drag a shard onto another edge of its region. The move shows "
           "in the Event log and, once handed off, in the routing table's owner column."),
        tr("<b>Change a threshold.</b> In Controls, change the aggregation window, the center sync, the lease "
           "timeout or the exit confidence. It applies at the next step boundary; Edit → Undo takes it back."),
        tr("<b>Cut a region.</b> In Faults, pick a region and press Partition. Its edges stop hearing the "
           "center, their leases run out and they turn read-only (purple) but keep serving; Heal brings them back."),
        tr("<b>Record and replay.</b> Press Record in the toolbar, let it run, then File → Open recording and "
           "scrub the timeline: every view follows to the moment you pick."),
    };
}

GettingStartedDialog::GettingStartedDialog(QWidget *parent) : QDialog(parent), m_again(new QCheckBox) {
    setObjectName("gettingStarted");
    setWindowTitle(tr("Getting started with Synaptic"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("This window runs a cluster: edges in regions around a center, each edge "
                                "owning a few shards of the model. Five things to try:"));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    int n = 0;
    for (const QString &step : steps()) {
        auto *label = new QLabel(QString("%1. %2").arg(++n).arg(step));
        label->setWordWrap(true);
        label->setTextFormat(Qt::RichText);
        layout->addWidget(label);
    }
    auto *later = new QLabel(tr("Help → Getting started opens this again."));
    later->setEnabled(false);
    layout->addWidget(later);
    m_again->setText(tr("Show this at startup"));
    m_again->setChecked(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_again);
    bottom->addStretch();
    bottom->addWidget(buttons);
    layout->addLayout(bottom);
    setMinimumWidth(560);
}

bool GettingStartedDialog::wanted() {
    return !QSettings().value(kSeenKey, false).toBool();
}

void GettingStartedDialog::done(int result) {
    QSettings().setValue(kSeenKey, !m_again->isChecked());
    QDialog::done(result);
}

} // namespace synaptic::ui
