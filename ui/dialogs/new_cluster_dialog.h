#pragma once

#include "core/engine/sim/cluster_config.h"

#include <QDialog>

class QComboBox;
class QSpinBox;

namespace synaptic::ui {

// A cluster of `regions` × `edgesPerRegion` identical edges, everything else
// (knobs, links, model, data) taken from `base`. Regions get short names
// ("r0", "r1", ...) and edges "<region>-<i>", like the shipped configs.
engine::ClusterConfig makeCluster(const engine::ClusterConfig &base, int regions, int edgesPerRegion,
                                  const std::string &strategy, std::uint64_t seed);

// File → New cluster: asks for the shape, strategy and seed of a cluster
// built from the shipped default config.
class NewClusterDialog : public QDialog {
    Q_OBJECT
public:
    explicit NewClusterDialog(const engine::ClusterConfig &base, QWidget *parent = nullptr);
    engine::ClusterConfig config() const;

private:
    engine::ClusterConfig m_base;
    QSpinBox *m_regions;
    QSpinBox *m_edges;
    QComboBox *m_strategy;
    QSpinBox *m_seed;
};

} // namespace synaptic::ui
