#pragma once

#include "remote_target.h"

#include "core/engine/sim/cluster_config.h"

#include <functional>

class QMainWindow;

namespace synaptic::ui {

class ControlPlaneWindow;
class LocalClusterLauncher;

// A control-plane window fed by the cluster whose center is `target`
// (RemoteClusterSession), titled with its address; `config` is the one the
// center described. Not started: call start() to connect.
ControlPlaneWindow *remoteWindow(const RemoteTarget &target, const engine::ClusterConfig &config);

// File → Launch local cluster…: starts `synaptic-node cluster` on `config`
// (LocalClusterLauncher), opens a connected window once its center listens
// (and hands it to `opened`, if given), and stops the cluster when that
// window closes or the application quits. Progress goes to `from`'s status
// bar, failures to a message box over it. GUI thread; returns at once.
LocalClusterLauncher *launchLocalCluster(const engine::ClusterConfig &config, QMainWindow *from,
                                         std::function<void(ControlPlaneWindow *)> opened = {});

} // namespace synaptic::ui
