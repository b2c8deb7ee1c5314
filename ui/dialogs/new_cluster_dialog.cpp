#include "new_cluster_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>

namespace synaptic::ui {

engine::ClusterConfig makeCluster(const engine::ClusterConfig &base, int regions, int edgesPerRegion,
                                  const std::string &strategy, std::uint64_t seed) {
    engine::ClusterConfig c = base;
    c.strategy = strategy;
    c.seed = seed;
    const double gflops = base.regions.empty() || base.regions[0].edges.empty() ? 100
                                                                                 : base.regions[0].edges[0].gflops;
    c.regions.clear();
    for (int r = 0; r < regions; ++r) {
        engine::RegionConfig region;
        region.name = "r" + std::to_string(r);
        for (int e = 0; e < edgesPerRegion; ++e)
            region.edges.push_back({region.name + "-" + std::to_string(e), gflops});
        c.regions.push_back(region);
    }
    return c;
}

NewClusterDialog::NewClusterDialog(const engine::ClusterConfig &base, QWidget *parent)
    : QDialog(parent), m_base(base), m_regions(new QSpinBox), m_edges(new QSpinBox), m_strategy(new QComboBox),
      m_seed(new QSpinBox) {
    setWindowTitle(tr("New cluster"));
    m_regions->setRange(1, 16);
    m_regions->setValue(int(base.regions.size()));
    m_edges->setRange(1, 32);
    m_edges->setValue(base.regions.empty() ? 4 : int(base.regions[0].edges.size()));
    for (const auto &s : engine::kStrategies)
        m_strategy->addItem(QString::fromStdString(s));
    m_strategy->setCurrentText(QString::fromStdString(base.strategy));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(int(base.seed));
    auto *form = new QFormLayout(this);
    form->addRow(tr("Regions"), m_regions);
    form->addRow(tr("Edges per region"), m_edges);
    form->addRow(tr("Strategy"), m_strategy);
    form->addRow(tr("Seed"), m_seed);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

engine::ClusterConfig NewClusterDialog::config() const {
    return makeCluster(m_base, m_regions->value(), m_edges->value(), m_strategy->currentText().toStdString(),
                       std::uint64_t(m_seed->value()));
}

} // namespace synaptic::ui
