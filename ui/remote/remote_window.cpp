#include "remote_window.h"

#include "local_cluster_launcher.h"
#include "remote_cluster_session.h"

#include "ui/control_plane_window.h"

#include <QApplication>
#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>

namespace synaptic::ui {

ControlPlaneWindow *remoteWindow(const RemoteTarget &target, const engine::ClusterConfig &config) {
    auto *session = new RemoteClusterSession(target, config);
    return new ControlPlaneWindow(config, QObject::tr("cluster at %1").arg(QString::fromStdString(target.address)),
                                  session);
}

LocalClusterLauncher *launchLocalCluster(const engine::ClusterConfig &config, QMainWindow *from,
                                         std::function<void(ControlPlaneWindow *)> opened) {
    // The application owns it, not `from`: the cluster outlives the window
    // that asked for it and ends with the window that shows it.
    auto *launcher = new LocalClusterLauncher(config, qApp);
    QPointer<QMainWindow> origin(from);
    if (origin)
        origin->statusBar()->showMessage(QObject::tr("launching a local cluster (synaptic-node cluster)…"), 0);
    QObject::connect(launcher, &LocalClusterLauncher::failed, launcher, [origin](const QString &why) {
        if (!origin)
            return;
        origin->statusBar()->clearMessage();
        // Not exec(): the failure arrives from the process's signals, and a
        // nested event loop there would hold up everything queued behind it.
        auto *box = new QMessageBox(QMessageBox::Warning, QObject::tr("Cannot launch a local cluster"), why,
                                    QMessageBox::Ok, origin);
        box->setObjectName("launchFailedBox");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    QObject::connect(launcher, &LocalClusterLauncher::ready, launcher,
                     [launcher, origin, opened](const RemoteTarget &target, const engine::ClusterConfig &described) {
                         if (origin)
                             origin->statusBar()->showMessage(
                                 QObject::tr("local cluster up at %1").arg(QString::fromStdString(target.address)), 8000);
                         ControlPlaneWindow *w = remoteWindow(target, described);
                         w->setAttribute(Qt::WA_DeleteOnClose);
                         QObject::connect(w, &QObject::destroyed, launcher, &LocalClusterLauncher::stop);
                         w->show();
                         w->start();
                         if (opened)
                             opened(w);
                     });
    launcher->launch();
    return launcher;
}

} // namespace synaptic::ui
