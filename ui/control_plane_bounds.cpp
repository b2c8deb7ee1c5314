// The planner's share bounds in the control plane (issue 14 item 4): the
// status bar says which edges are outside them, and a shard drag that
// would break them asks first (or is refused, or allowed: config
// "planner.on_bound"). The shard map does the arithmetic; this file is the
// window's side of it. GUI thread only.
#include "control_plane_window.h"

#include "models/shard_map_model.h"

#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>

namespace synaptic::ui {

void ControlPlaneWindow::buildPlannerBounds() {
    m_plannerStatus = new QLabel;
    m_plannerStatus->setObjectName("plannerStatus");
    statusBar()->addPermanentWidget(m_plannerStatus);
    const auto &bounds = m_config.planner;
    m_shardMap->setShareBounds(bounds.minShare, bounds.maxShare,
                               ShardMapModel::onBoundFromName(QString::fromStdString(bounds.onBound)));
    m_shardMap->setConfirmHook([this](const QString &question) { return confirmMove(question); });
    connect(m_shardMap, &ShardMapModel::boundsChanged, this, &ControlPlaneWindow::updatePlannerStatus);
    updatePlannerStatus();
}

void ControlPlaneWindow::updatePlannerStatus() {
    const QStringList problems = m_shardMap->boundProblems();
    if (!m_shardMap->hasShares()) {
        m_plannerStatus->setText(tr("shares: no routing yet"));
        m_plannerStatus->setStyleSheet({});
        m_plannerStatus->setToolTip(tr("Each edge's share of the parameters shows once the cluster reports its "
                                       "routing; the planner's bounds are %1").arg(m_shardMap->boundsText()));
        return;
    }
    if (problems.isEmpty()) {
        m_plannerStatus->setText(tr("shares within %1").arg(m_shardMap->boundsText()));
        m_plannerStatus->setStyleSheet({});
        m_plannerStatus->setToolTip(tr("Every edge owns a share of the parameters inside the planner's bounds "
                                       "(config \"planner\")"));
        return;
    }
    m_plannerStatus->setText(problems.size() == 1
                                 ? tr("⚠ 1 edge outside %1").arg(m_shardMap->boundsText())
                                 : tr("⚠ %1 edges outside %2").arg(problems.size()).arg(m_shardMap->boundsText()));
    m_plannerStatus->setStyleSheet(QStringLiteral("color: #d03030; font-weight: bold"));
    m_plannerStatus->setToolTip(problems.join(QLatin1Char('\n')));
}

bool ControlPlaneWindow::confirmMove(const QString &question) {
    QMessageBox box(QMessageBox::Warning, tr("Shard move outside the planner's bounds"), question,
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setDefaultButton(QMessageBox::No);
    const int answer = m_askConfirm ? m_askConfirm(box) : box.exec();
    return answer == QMessageBox::Yes;
}

} // namespace synaptic::ui
