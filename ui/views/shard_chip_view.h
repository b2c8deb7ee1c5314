#pragma once

#include "shard_chip_layout.h"

#include <QAbstractItemView>
#include <QHash>
#include <QPixmap>
#include <QStringList>

#include <vector>

namespace synaptic::ui {

// The shard map at a glance (issue 18 §2): one row per edge, in the order
// of ShardMapModel's edges, holding the edge's name, its share of the model
// as a bar against the planner's band (5–15 % by DESIGN.md §1), and its
// shards as chips whose widths are proportional to their parameter counts
// (ShardChipLayout), coloured by layer (layerColour(); the panel's legend
// names them). A move the engine has not reported yet is hatched with a
// dashed outline. Selection (click, Ctrl/Shift-click, rubber band) and drag
// go through the model: a drop onto another edge's row calls the model's
// dropMimeData(), so refusals, bounds questions and move commands are the
// tree's, word for word. Only the rows in view are painted; the chips'
// geometry and what the model says of them is cached and reloaded per edge
// when the model reports a change, so a live refresh costs nothing here
// unless a shard moved (bench/ui_refresh). GUI thread only.
class ShardChipView : public QAbstractItemView {
    Q_OBJECT
public:
    explicit ShardChipView(QWidget *parent = nullptr);

    void setModel(QAbstractItemModel *model) override;
    QRect visualRect(const QModelIndex &index) const override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    QModelIndex indexAt(const QPoint &point) const override;

    // What is drawn, for tests and the legend (viewport coordinates).
    const ShardChipLayout &chipLayout() const;
    QRect edgeRect(int edge) const;              // the whole row
    QList<QRect> chipRects(int edge, int row) const; // one per line the chip spans
    bool chipInFlight(int edge, int row) const;
    bool chipSelected(int edge, int row) const;
    int edgeAt(const QPoint &point) const; // -1 off every row
    QStringList layers() const;            // in model order; layer i is drawn in layerColour(i)
    static QColor layerColour(int layer);
    QString toolTipAt(const QPoint &point) const;
    // The drag startDrag() makes: the model's mime data of the selected chips.
    QMimeData *selectionMimeData() const;

Q_SIGNALS:
    void layersChanged(const QStringList &layers);

protected:
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    int horizontalOffset() const override { return 0; }
    int verticalOffset() const override;
    bool isIndexHidden(const QModelIndex &) const override { return false; }
    void setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command) override;
    QRegion visualRegionForSelection(const QItemSelection &selection) const override;
    void updateGeometries() override;
    void reset() override;
    void dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles) override;
    void rowsInserted(const QModelIndex &parent, int start, int end) override;
    void selectionChanged(const QItemSelection &selected, const QItemSelection &deselected) override;

    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void startDrag(Qt::DropActions supportedActions) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    struct Chip {
        int shard = -1;
        int layer = 0;
        bool inFlight = false;
        bool selected = false;
    };
    struct Edge {
        QString name;
        QString mode;
        double share = 0;
        bool outOfBounds = false;
        bool chipsDirty = true; // reload chips from the model before use
        bool infoDirty = true;  // reload name, share, mode
        std::vector<Chip> chips;
        // The row's chips as last painted: a refresh that changed nothing
        // here blits it (null after any change to the row's chips).
        QPixmap picture;
    };
    // Row geometry, from the font: see shard_chip_view.cpp.
    struct Metrics {
        int pad = 3, line = 18, gap = 2, nameWidth = 60, barWidth = 56, percentWidth = 44;
        int laneX() const { return pad + nameWidth + 6 + barWidth + 4 + percentWidth + 4; }
    };

    void ensureCache() const;
    void reloadEdge(int edge) const;
    void reloadInfo(int edge) const;
    void markAllDirty();
    void relayout(); // after the font or the width changed
    int rowHeight() const;
    int laneWidth() const;
    QModelIndex edgeIndex(int edge) const;
    int layerIndex(const QString &layer) const;
    double bandMin() const;
    double bandMax() const;
    double shareScale() const; // the share the bar's full width stands for

    // Painting (shard_chip_view_paint.cpp).
    void paintEdge(QPainter &p, int edge, const QRect &row) const;
    void paintShareBar(QPainter &p, int edge, const QRect &bar) const;
    void paintChips(QPainter &p, int edge, QPoint lane) const; // lane: the top left of the chips
    QSize laneSize() const;

    mutable std::vector<Edge> m_edges;
    mutable ShardChipLayout m_layout;
    mutable QStringList m_layers;
    mutable QHash<QString, int> m_layerIndex;
    mutable bool m_resetPending = true;
    double m_pictureScale = 0; // the layout's scale the rows' pictures were drawn at
    Metrics m_metrics;
    int m_dropEdge = -1;  // the row a drag hovers
    bool m_dropOk = false; // whether the model would take the drop there
    QRect m_rubberBand;   // viewport coordinates; empty when none
    QPoint m_pressed;     // where the button went down, in content coordinates
    // Inside mousePressEvent: Qt selects from the pressed item's centre to the
    // cursor, which for a chip folded over two lines would span the lane.
    bool m_pressing = false;
    Qt::KeyboardModifiers m_pressModifiers;
};

} // namespace synaptic::ui
