#pragma once

#include "held_shares.h"

#include "core/engine/synapse/routing_table.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>
#include <vector>

namespace synaptic::ui {

// The synapse routing table (DESIGN.md §1) as a table: one row per shard.
// Fed whole snapshots; since the engine's table is copy-on-write per row, a
// row whose pointer did not change did not change, so an update emits
// dataChanged only for the rows that did (DESIGN.md §6). Display text is
// formatted; Qt::UserRole holds the raw number for sorting (set it as the
// proxy's sort role). Rows past the operator's drift or version-lag
// threshold (issue 18 §4) are highlighted; the model keeps their counts for
// the status bar, updated per changed row so a snapshot costs no full scan.
// GUI thread only.
class RoutingTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Shard, Layer, Rows, Parameters, Owners, OwnerVersion, CenterVersion, MinCached, VersionLag, Drift,
                  LastSync, RowsHeld, ColumnCount };

    static constexpr int SortRole = Qt::UserRole;
    // Which thresholds a row is past: Highlight flags, as an int.
    static constexpr int HighlightRole = Qt::UserRole + 1;
    enum Highlight { PastDrift = 1, PastLag = 2 };

    explicit RoutingTableModel(QObject *parent = nullptr);

    void setNames(const QStringList &edgeNames, const QStringList &regionNames);
    void setSnapshot(std::shared_ptr<const engine::RoutingSnapshot> snapshot);
    const std::shared_ptr<const engine::RoutingSnapshot> &snapshot() const { return m_snapshot; }
    // Rows whose parameter drift exceeds this are highlighted.
    void setDriftThreshold(double threshold);
    double driftThreshold() const { return m_driftThreshold; }
    // Rows where some edge lags its owner by more than this many versions
    // are highlighted; negative (the default): no lag highlighting, as in
    // views whose operator sets none (the hot-update window).
    void setLagThreshold(int versions);
    int lagThreshold() const { return m_lagThreshold; }
    int rowsPastDrift() const { return m_pastDrift; }
    int rowsPastLag() const { return m_pastLag; }
    // Fills the "rows held" column (dense shards read "all").
    void setHeldShares(std::shared_ptr<const HeldShares> shares);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

Q_SIGNALS:
    // A threshold or the number of rows past one changed (once per snapshot).
    void highlightsChanged();

private:
    int highlightOf(const engine::ShardRoute &row, const std::vector<int> &regionOfEdge) const;
    void recountHighlights(); // every row, after a reset or a threshold change
    void setFlags(int row, int flags);
    void emitThresholdChange(int column);
    QString thresholdTooltip(const engine::ShardRoute &row, int flags) const;
    QVariant thresholdHeaderTooltip(int column) const;

    QVariant display(const engine::ShardRoute &row, int column) const;
    QVariant sortKey(const engine::ShardRoute &row, int column) const;

    QString heldTooltip(int shard) const;
    QString lagTooltip(const engine::ShardRoute &row) const; // names the edge furthest behind
    QString ownerVersionsTooltip(const engine::ShardRoute &row) const;

    std::shared_ptr<const engine::RoutingSnapshot> m_snapshot;
    std::shared_ptr<const HeldShares> m_held;
    QStringList m_edgeNames;
    QStringList m_regionNames;
    double m_driftThreshold = 0.5;
    int m_lagThreshold = -1;
    std::vector<int> m_flags; // Highlight flags per row
    int m_pastDrift = 0;
    int m_pastLag = 0;
};

} // namespace synaptic::ui
