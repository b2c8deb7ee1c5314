#pragma once

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_command.h"

#include <QWidget>

#include <array>

class QComboBox;

namespace synaptic::ui {

// The codecs per traffic class (issue 14): gradients edges push, values
// that come back to edges, and the center's channel. Picking one sends a
// set_codec command the engine applies at its next step boundary; the
// byte charts show the effect. GUI thread only.
class CodecPanel : public QWidget {
    Q_OBJECT
public:
    explicit CodecPanel(const engine::CodecKnobs &codecs, QWidget *parent = nullptr);

    // 0 gradients, 1 values, 2 center.
    QComboBox *classBox(int trafficClass) const { return m_boxes[std::size_t(trafficClass)]; }

Q_SIGNALS:
    void commandRequested(const synaptic::engine::SimCommand &command);

private:
    std::array<QComboBox *, 3> m_boxes{};
};

} // namespace synaptic::ui
