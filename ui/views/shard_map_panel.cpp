#include "shard_map_panel.h"

#include "shard_chip_view.h"
#include "ui/models/shard_map_model.h"

#include <QLabel>
#include <QStackedWidget>
#include <QTabBar>
#include <QTreeView>
#include <QVBoxLayout>

namespace synaptic::ui {

ShardMapPanel::ShardMapPanel(ShardMapModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_tabs(new QTabBar), m_legend(new QLabel), m_stack(new QStackedWidget),
      m_chips(new ShardChipView), m_tree(new QTreeView) {
    m_chips->setModel(model);
    m_chips->setToolTip(tr("Chips: one per shard, as wide as its parameters, coloured by layer. Drag them (Ctrl/Shift, or a "
                           "rubber band started on an edge's name, for several) onto another edge of the same region to move their ownership"));

    m_tree->setModel(model);
    m_tree->setHeaderHidden(true);
    // 64 edges own ~16,000 chips: uniform rows let a move re-lay out the tree
    // without asking every item for its size.
    m_tree->setUniformRowHeights(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setDragDropMode(QAbstractItemView::DragDrop);
    m_tree->setDefaultDropAction(Qt::MoveAction);
    m_tree->setDropIndicatorShown(true);
    // Expand the edges only: expandAll() would also keep a persistent index per
    // shard chip, and every row move would walk all of them.
    connect(model, &QAbstractItemModel::modelReset, m_tree, [this] { m_tree->expandToDepth(0); });
    m_tree->setToolTip(tr("Drag shards (Ctrl/Shift for several) onto another edge of the same region to move "
                          "their ownership"));

    m_tabs->addTab(tr("Chips"));
    m_tabs->addTab(tr("Table"));
    m_tabs->setDrawBase(false);
    m_tabs->setExpanding(false);
    m_stack->addWidget(m_chips);
    m_stack->addWidget(m_tree);
    connect(m_tabs, &QTabBar::currentChanged, this, [this](int i) {
        m_stack->setCurrentIndex(i);
        m_legend->setVisible(i == 0);
    });

    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setContentsMargins(4, 0, 4, 0);
    connect(m_chips, &ShardChipView::layersChanged, this, &ShardMapPanel::updateLegend);
    connect(model, &ShardMapModel::boundsChanged, this, [this] { updateLegend(m_chips->layers()); });
    updateLegend(m_chips->layers());

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addWidget(m_tabs);
    layout->addWidget(m_legend);
    layout->addWidget(m_stack, 1);
    // A handful of rows at least, however tall the docks sharing the column grow.
    m_stack->setMinimumHeight(160);
    setMinimumWidth(300);
}

void ShardMapPanel::updateLegend(const QStringList &layers) {
    // Colour swatches as text: the label wraps them to any dock width.
    QStringList items;
    for (int i = 0; i < layers.size(); ++i)
        items << QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2")
                     .arg(ShardChipView::layerColour(i).name(), layers[i].toHtmlEscaped());
    items << tr("<span style=\"color:#f09a30\">&#9636;</span>&nbsp;moving");
    if (m_model->minShare() > 0 || m_model->maxShare() < 1)
        items << tr("<span style=\"color:#59a14f\">&#9644;</span>&nbsp;share band %1").arg(m_model->boundsText());
    m_legend->setText(items.join(QStringLiteral(" &nbsp; ")));
}

void ShardMapPanel::setMode(Mode mode) { m_tabs->setCurrentIndex(mode == Mode::Chips ? 0 : 1); }

ShardMapPanel::Mode ShardMapPanel::mode() const { return m_tabs->currentIndex() == 0 ? Mode::Chips : Mode::Table; }

void ShardMapPanel::setMovesEnabled(bool enabled) {
    for (QAbstractItemView *view : {static_cast<QAbstractItemView *>(m_chips), static_cast<QAbstractItemView *>(m_tree)}) {
        view->setDragEnabled(enabled);
        view->setAcceptDrops(enabled);
    }
}

void ShardMapPanel::showEdge(int edge) {
    const QModelIndex index = m_model->edgeIndex(edge);
    for (QAbstractItemView *view : {static_cast<QAbstractItemView *>(m_chips), static_cast<QAbstractItemView *>(m_tree)}) {
        view->setCurrentIndex(index);
        view->scrollTo(index, QAbstractItemView::PositionAtTop);
    }
}

} // namespace synaptic::ui
