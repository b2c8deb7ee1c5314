#include "control_panel.h"

#include "highlight_thresholds.h"
#include "knob_edit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>

namespace synaptic::ui {

namespace {

using Kind = engine::SimCommand::Kind;

engine::SimCommand knob(Kind kind, double value) {
    engine::SimCommand c;
    c.kind = kind;
    c.value = value;
    return c;
}

QDoubleSpinBox *seconds(double value, double min, double max) {
    auto *b = new QDoubleSpinBox;
    b->setRange(min, max);
    b->setDecimals(2);
    b->setSuffix(QObject::tr(" s"));
    b->setValue(value);
    return b;
}

} // namespace

ControlPanel::ControlPanel(const engine::ClusterConfig &config, const QStringList &nodeNames, QWidget *parent)
    : QWidget(parent), m_undo(new QUndoStack(this)), m_window(new QSpinBox), m_sync(new QSpinBox),
      m_lease(seconds(config.knobs.leaseSeconds, 0.1, 3600)),
      m_heartbeat(seconds(config.knobs.heartbeatSeconds, 0.05, 3600)), m_confidence(new QDoubleSpinBox),
      m_confidenceFor(new QComboBox), m_from(new QComboBox), m_to(new QComboBox),
      m_latency(new QDoubleSpinBox), m_bandwidth(new QDoubleSpinBox), m_loss(new QDoubleSpinBox),
      m_wholePair(new QCheckBox(tr("every link between their regions"))), m_linkSource(new QLabel),
      m_highlights(new HighlightThresholds(m_undo)), m_geography(config), m_nodes(int(nodeNames.size())) {
    m_window->setObjectName("aggregation window");
    m_window->setRange(1, 10000);
    m_window->setSuffix(tr(" steps"));
    m_window->setValue(config.knobs.aggregationWindowSteps);
    m_sync->setObjectName("center sync");
    m_sync->setRange(1, 100000);
    m_sync->setSuffix(tr(" windows"));
    m_sync->setValue(config.knobs.centerSyncWindows);
    m_sync->setToolTip(tr("A region syncs with the center once its edges have merged this many windows each: "
                          "a region's worth of training, however many of its edges still train"));
    m_lease->setObjectName("lease");
    m_heartbeat->setObjectName("heartbeat");

    auto *knobs = new QGroupBox(tr("Thresholds (applied at the next step boundary)"));
    auto *form = new QFormLayout(knobs);
    form->addRow(tr("Aggregation window"), m_window);
    form->addRow(tr("Center sync every"), m_sync);
    form->addRow(tr("Lease timeout"), m_lease);
    form->addRow(tr("Heartbeat interval"), m_heartbeat);
    m_confidence->setObjectName("confidence threshold");
    m_confidence->setRange(0, 1);
    m_confidence->setSingleStep(0.01);
    m_confidence->setValue(config.knobs.confidenceThreshold);
    m_confidence->setToolTip(tr("Early exit: an edge answers a request itself when its exit head is at least this "
                                "confident, and forwards the rest to the center"));
    m_confidenceFor->addItem(tr("all edges"));
    m_confidenceFor->addItems(nodeNames.mid(0, m_nodes - 1));
    auto *confidenceRow = new QHBoxLayout;
    confidenceRow->addWidget(m_confidence);
    confidenceRow->addWidget(m_confidenceFor);
    form->addRow(tr("Exit confidence"), confidenceRow);
    bindKnob(m_window, [](double v) { return knob(Kind::SetAggregationWindow, v); });
    bindKnob(m_sync, [](double v) { return knob(Kind::SetCenterSync, v); });
    bindKnob(m_lease, [](double v) { return knob(Kind::SetLeaseSeconds, v); });
    bindKnob(m_heartbeat, [](double v) { return knob(Kind::SetHeartbeatSeconds, v); });
    bindKnob(m_confidence, [this](double v) {
        auto c = knob(Kind::SetConfidenceThreshold, v);
        c.node = m_confidenceFor->currentIndex() - 1; // 0 = all edges (-1)
        return c;
    });

    auto *link = new QGroupBox(tr("Link"));
    auto *linkForm = new QFormLayout(link);
    m_from->addItems(nodeNames);
    m_to->addItems(nodeNames);
    m_to->setCurrentIndex(m_nodes - 1);
    m_latency->setRange(0, 60000);
    m_latency->setDecimals(3);
    m_latency->setSuffix(tr(" ms"));
    m_bandwidth->setRange(0.001, 1e7);
    m_bandwidth->setDecimals(3);
    m_bandwidth->setSuffix(tr(" Mb/s"));
    m_loss->setRange(0, 0.99);
    m_loss->setSingleStep(0.01);
    m_linkSource->setWordWrap(true);
    const bool geographyFits = m_geography.edgeCount() == m_nodes - 1;
    if (geographyFits) {
        connect(m_from, &QComboBox::currentIndexChanged, this, &ControlPanel::showLinkValues);
        connect(m_to, &QComboBox::currentIndexChanged, this, &ControlPanel::showLinkValues);
        showLinkValues();
    } else { // names that are not the config's: the edge-center class is the best guess
        setLinkValues(config.edgeCenter.latencySeconds * 1e3, config.edgeCenter.bandwidthBitsPerSecond / 1e6,
                      config.edgeCenter.lossRate);
    }
    auto *ends = new QHBoxLayout;
    ends->addWidget(m_from);
    ends->addWidget(m_to);
    linkForm->addRow(tr("Between"), ends);
    linkForm->addRow(tr("Latency (one way)"), m_latency);
    linkForm->addRow(tr("Bandwidth"), m_bandwidth);
    linkForm->addRow(tr("Loss"), m_loss);
    linkForm->addRow(m_linkSource);
    linkForm->addRow(m_wholePair);
    auto *apply = new QPushButton(tr("Apply to link"));
    connect(apply, &QPushButton::clicked, this, &ControlPanel::applyLink);
    linkForm->addRow(apply);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(knobs);
    layout->addWidget(m_highlights);
    layout->addWidget(link);
    layout->addStretch();
    m_commandGroups = {knobs, link};
}

void ControlPanel::setCommandsEnabled(bool on) {
    for (auto *group : m_commandGroups)
        group->setEnabled(on);
}

template <typename Box, typename Make>
void ControlPanel::bindKnob(Box *box, Make make) {
    bindKnobEdits(this, m_undo, box, [this, make](double value) {
        const engine::SimCommand target = make(value);
        return std::function<void(double)>([this, target](double v) {
            engine::SimCommand c = target;
            c.value = v;
            Q_EMIT commandRequested(c);
        });
    });
}

int ControlPanel::nodeArg(int index) const { return index == m_nodes - 1 ? -1 : index; }

void ControlPanel::setLinkEnds(int from, int to) {
    m_from->setCurrentIndex(from);
    m_to->setCurrentIndex(to);
}

void ControlPanel::setLinkValues(double latencyMs, double bandwidthMbps, double loss) {
    m_latency->setValue(latencyMs);
    m_bandwidth->setValue(bandwidthMbps);
    m_loss->setValue(loss);
}

void ControlPanel::setWholeRegionPair(bool on) { m_wholePair->setChecked(on); }
double ControlPanel::latencyMs() const { return m_latency->value(); }
double ControlPanel::bandwidthMbps() const { return m_bandwidth->value(); }
QString ControlPanel::linkSource() const { return m_linkSource->text(); }

void ControlPanel::showLinkValues() {
    const int a = engineNode(m_from->currentIndex()), b = engineNode(m_to->currentIndex());
    if (a == b || m_from->currentIndex() < 0 || m_to->currentIndex() < 0) {
        m_linkSource->setText(tr("choose two different nodes"));
        return;
    }
    const auto applied = m_applied.constFind({std::min(a, b), std::max(a, b)});
    const engine::LinkSpec s = applied != m_applied.cend() ? *applied : m_geography.between(a, b);
    setLinkValues(s.latencySeconds * 1e3, s.bandwidthBitsPerSecond / 1e6, s.lossRate);
    m_linkSource->setText(applied != m_applied.cend() ? tr("as last set here") : tr("as configured"));
}

QList<QPair<int, int>> ControlPanel::linkTargets() const {
    const int from = m_from->currentIndex(), to = m_to->currentIndex();
    if (!m_wholePair->isChecked() || m_geography.edgeCount() != m_nodes - 1)
        return {{nodeArg(from), nodeArg(to)}};
    // Engine edges of a region, or the center (-1) on its own.
    auto side = [&](int index) {
        QList<int> out;
        if (nodeArg(index) < 0)
            return QList<int>{-1};
        const int region = m_geography.regionOfEdge(index);
        for (int e = 0; e < m_geography.edgeCount(); ++e)
            if (m_geography.regionOfEdge(e) == region)
                out << e;
        return out;
    };
    QList<QPair<int, int>> pairs;
    for (int a : side(from))
        for (int b : side(to))
            if (a != b && !pairs.contains({b, a}))
                pairs.append({a, b});
    return pairs;
}

void ControlPanel::applyLink() {
    for (const auto &[a, b] : linkTargets()) {
        engine::SimCommand c;
        c.kind = Kind::SetLink;
        c.node = a;
        c.nodeB = b;
        c.link.latencySeconds = m_latency->value() / 1e3;
        c.link.bandwidthBitsPerSecond = m_bandwidth->value() * 1e6;
        c.link.lossRate = m_loss->value();
        const int x = a < 0 ? 0 : a + 1, y = b < 0 ? 0 : b + 1;
        m_applied.insert({std::min(x, y), std::max(x, y)}, c.link);
        Q_EMIT commandRequested(c);
    }
    m_linkSource->setText(tr("as last set here"));
}

FaultPanel::FaultPanel(const QStringList &nodeNames, const QStringList &regionNames, QWidget *parent)
    : QWidget(parent), m_node(new QComboBox), m_linkTo(new QComboBox), m_region(new QComboBox),
      m_nodes(int(nodeNames.size())) {
    m_node->addItems(nodeNames);
    m_linkTo->addItems(nodeNames);
    m_linkTo->setCurrentIndex(m_nodes - 1);
    m_region->addItems(regionNames);
    auto *form = new QFormLayout(this);
    auto button = [this](const QString &text, Kind kind) {
        auto *b = new QPushButton(text);
        connect(b, &QPushButton::clicked, this, [this, kind] { trigger(kind); });
        return b;
    };
    auto row = [](QWidget *a, QWidget *b, QWidget *c = nullptr) {
        auto *w = new QWidget;
        auto *l = new QHBoxLayout(w);
        l->setContentsMargins(0, 0, 0, 0);
        l->addWidget(a);
        l->addWidget(b);
        if (c)
            l->addWidget(c);
        return w;
    };
    form->addRow(tr("Node"), row(m_node, button(tr("Kill"), Kind::KillNode), button(tr("Revive"), Kind::ReviveNode)));
    form->addRow(tr("Link to"), row(m_linkTo, button(tr("Partition"), Kind::PartitionLink),
                                    button(tr("Heal"), Kind::HealLink)));
    form->addRow(tr("Region"), row(m_region, button(tr("Partition"), Kind::PartitionRegion),
                                   button(tr("Heal"), Kind::HealRegion)));
}

int FaultPanel::nodeArg(int index) const { return index == m_nodes - 1 ? -1 : index; }

void FaultPanel::select(int node, int linkTo, int region) {
    m_node->setCurrentIndex(node);
    m_linkTo->setCurrentIndex(linkTo);
    m_region->setCurrentIndex(region);
}

void FaultPanel::trigger(Kind kind) {
    engine::SimCommand c;
    c.kind = kind;
    c.node = nodeArg(m_node->currentIndex());
    c.nodeB = nodeArg(m_linkTo->currentIndex());
    c.region = m_region->currentIndex();
    Q_EMIT commandRequested(c);
}

} // namespace synaptic::ui
