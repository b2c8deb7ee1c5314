#pragma once

#include "held_shares.h"

#include "core/engine/sim/sim_command.h"
#include "core/engine/synapse/routing_table.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <functional>
#include <memory>

namespace synaptic::ui {

// Which edge owns which shard, as a two-level tree: edges (in config order)
// and under each the shards it owns in its region, sized by parameter count.
// Shards drag onto another edge of the same region: the drop sends one
// move-shard command per shard and changes nothing here: the tree changes
// only when a routing snapshot shows the new owner (DESIGN.md §6). A drop
// that cannot work (another region, a read-only or down edge, a move already
// in flight) sends nothing and says why. With the planner's bounds set
// (DESIGN.md §1: each edge owns 5–15 %), edges outside them are marked, and
// a drop that would push its target over the maximum or a source under the
// minimum is allowed, refused, or sent only once the confirm hook says yes
// (the window's hook asks the user; a test's answers directly).
// GUI thread only.
class ShardMapModel : public QAbstractItemModel {
    Q_OBJECT
public:
    static constexpr int ShardIdRole = Qt::UserRole;      // shard items: the shard id
    static constexpr int ParametersRole = Qt::UserRole + 1; // shard items: parameter count; edges: total owned
    static constexpr int EdgeModeRole = Qt::UserRole + 2;   // edge items: "training", "read_only", ...
    static constexpr int InFlightRole = Qt::UserRole + 3;   // shard items: a move was sent, not yet reported
    static constexpr int ShareRole = Qt::UserRole + 4;       // edges: fraction of all parameters owned (double)
    static constexpr int OutOfBoundsRole = Qt::UserRole + 5; // edges: the share is outside the planner's bounds
    static constexpr int HeldShareRole = Qt::UserRole + 6;   // edges: share of the embedding rows held (double; -1: none)
    static constexpr int LayerRole = Qt::UserRole + 7;       // shard items: the layer's name
    static constexpr int VersionRole = Qt::UserRole + 8;     // shard items: version at its owner (quint64)
    static constexpr int EdgeNameRole = Qt::UserRole + 9;    // edge items: the edge's name alone
    static inline const QString kMimeType = QStringLiteral("application/x-synaptic-shards");

    explicit ShardMapModel(QObject *parent = nullptr);

    void setTopology(const QStringList &edgeNames, const QVector<int> &regionOfEdge, const QStringList &regionNames);
    void setSnapshot(std::shared_ptr<const engine::RoutingSnapshot> snapshot);
    void setEdgeMode(int edge, const QString &mode);
    // Which embedding rows each edge holds (issue 16): edges then say what
    // share of the table's rows they hold, and an embedding shard's tooltip
    // lists its region's edges.
    void setHeldShares(std::shared_ptr<const HeldShares> shares);
    // What the engine said about a move, whoever asked for it (a drop, a
    // commands file, a replay): accepted → shown in flight until a snapshot
    // shows the new owner; refused → no longer in flight.
    void setMoveInFlight(int shard, int region, int targetEdge, bool inFlight);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDropActions() const override { return Qt::MoveAction; }
    Qt::DropActions supportedDragActions() const override { return Qt::MoveAction; }
    bool canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                         const QModelIndex &parent) const override;
    bool dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                      const QModelIndex &parent) override;

    // Why a drop onto `parent` would be refused; empty when it would work.
    QString refusal(const QMimeData *data, const QModelIndex &parent) const;
    QModelIndex edgeIndex(int edge) const { return index(edge, 0); }

    // The planner's bounds (config "planner"); none apply until set.
    enum class OnBound { Allow, Confirm, Refuse };
    static OnBound onBoundFromName(const QString &name); // "allow", "confirm", "refuse"
    void setShareBounds(double minShare, double maxShare, OnBound onBound);
    // Asked with the question before a move that breaks the bounds under
    // OnBound::Confirm; true sends it. Without a hook such a move is refused.
    using ConfirmHook = std::function<bool(const QString &question)>;
    void setConfirmHook(ConfirmHook hook) { m_confirm = std::move(hook); }
    bool hasShares() const { return m_totalParameters > 0; } // a snapshot has arrived
    double share(int edge) const; // of all parameters, as the latest snapshot has it
    bool outOfBounds(int edge) const;
    // One line per edge outside the bounds, e.g. "eu-0 owns 17.2 %, over the 15 % maximum".
    QStringList boundProblems() const;
    QString boundsText() const; // "5–15 %"
    double minShare() const { return m_minShare; } // 0 until bounds are set
    double maxShare() const { return m_maxShare; } // 1 until bounds are set

Q_SIGNALS:
    void moveRequested(const synaptic::engine::SimCommand &command);
    void moveRefused(const QString &reason);
    // Shares or bounds changed: boundProblems() may say something else now.
    void boundsChanged();

private:
    struct Dragged {
        int shard;
        int region;
    };
    QList<Dragged> decode(const QMimeData *data) const;
    int targetEdge(const QModelIndex &parent) const;
    QString shardLabel(int shard) const;
    QString heldTooltip(int shard, int region) const;
    qlonglong owned(int edge) const;
    // What breaking the bounds `dragged` onto `edge` would do, counting moves
    // in flight as done; empty when it keeps them.
    QString boundBreach(const QList<Dragged> &dragged, int edge) const;
    bool passesBounds(const QList<Dragged> &dragged, int edge); // asks or refuses as OnBound says

    QStringList m_edgeNames;
    QStringList m_regionNames;
    QVector<int> m_regionOfEdge;
    QVector<QString> m_edgeMode;
    QVector<QVector<int>> m_owned; // per edge, shard ids in ascending order
    std::shared_ptr<const engine::RoutingSnapshot> m_snapshot;
    std::shared_ptr<const HeldShares> m_held;
    QHash<QPair<int, int>, int> m_inFlight; // (shard, region) → target edge: moves sent, not yet seen in a snapshot
    qlonglong m_totalParameters = 0;        // of the model: each region owns all of it
    double m_minShare = 0;
    double m_maxShare = 1;
    OnBound m_onBound = OnBound::Allow;
    ConfirmHook m_confirm;
};

} // namespace synaptic::ui
