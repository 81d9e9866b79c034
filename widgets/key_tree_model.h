#pragma once
// The keys of one run as a tree grouped by "/" scopes, with dtype, shape, record counts and a
// NaN/Inf badge where the statistics found non-finite values. Filter it with a
// QSortFilterProxyModel (recursive filtering) on NameColumn or KeyRole.

#include "widgets/run_loader.h"

#include <QAbstractItemModel>
#include <memory>

namespace xt::widgets {

class KeyTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Columns { NameColumn, DtypeColumn, ShapeColumn, RecordsColumn, IssuesColumn, ColumnCount };
    enum Roles {
        KeyRole = Qt::UserRole, // QString: the full key, empty on a scope that is not a key
        NonFiniteRole,          // bool: the key holds a NaN or an Inf somewhere
    };

    explicit KeyTreeModel(QObject* parent = nullptr);
    ~KeyTreeModel() override;
    void setRun(RunSnapshot run);
    const RunSnapshot& run() const { return m_run; }
    // The index (column 0) of a full key, or invalid.
    QModelIndex indexOfKey(const QString& key) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    Node* nodeOf(const QModelIndex& index) const;

    RunSnapshot m_run;
    std::unique_ptr<Node> m_root;
};

} // namespace xt::widgets
