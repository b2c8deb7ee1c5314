#pragma once

#include <QCoreApplication>
#include <QString>

namespace synaptic::ui::topology_text {

// What the topology view's free functions draw and say is translated in the
// view's own context, like its members' tr().
inline QString tr(const char *text, int n = -1) {
    return QCoreApplication::translate("synaptic::ui::TopologyView", text, nullptr, n);
}

} // namespace synaptic::ui::topology_text
