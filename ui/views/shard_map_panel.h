#pragma once

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTabBar;
class QTreeView;

namespace synaptic::ui {

class ShardChipView;
class ShardMapModel;

// The shard map dock's content (issue 18 §2): the chips at a glance
// (ShardChipView, with a legend of the layers' colours) or the tree of text
// rows as before, behind a "Chips | Table" switch. Both show the one
// ShardMapModel, so a selection's drag, a drop's refusal or question, and
// the in-flight marks are the same in either. GUI thread only.
class ShardMapPanel : public QWidget {
    Q_OBJECT
public:
    explicit ShardMapPanel(ShardMapModel *model, QWidget *parent = nullptr);

    enum class Mode { Chips, Table };
    void setMode(Mode mode);
    Mode mode() const;
    ShardChipView *chips() const { return m_chips; }
    QTreeView *tree() const { return m_tree; }
    // A replay sends no commands: no drags, no drops.
    void setMovesEnabled(bool enabled);
    // Brings `edge` to the top of either view and makes it current.
    void showEdge(int edge);

private:
    void updateLegend(const QStringList &layers);

    ShardMapModel *m_model;
    QTabBar *m_tabs;
    QLabel *m_legend;
    QStackedWidget *m_stack;
    ShardChipView *m_chips;
    QTreeView *m_tree;
};

} // namespace synaptic::ui
