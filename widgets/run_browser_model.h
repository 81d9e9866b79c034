#pragma once
// Runs -> ranks -> part files of the loaded runs, with their state (finalised, live, damaged),
// record counts and sizes.

#include "widgets/run_loader.h"

#include <QAbstractItemModel>

namespace xt::widgets {

class RunBrowserModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Columns { NameColumn, StatusColumn, RecordsColumn, SizeColumn, ColumnCount };
    enum Roles {
        RunIndexRole = Qt::UserRole, // int: index of the run in runs()
        RankRole,                    // int: rank, -1 on a run row
        PathRole,                    // QString: the part file, or the run's label
    };

    explicit RunBrowserModel(QObject* parent = nullptr);
    void setRuns(std::vector<RunSnapshot> runs);
    // A newer snapshot of the same run (more statistics): same rows, new data.
    void replaceRun(const RunSnapshot& before, const RunSnapshot& after);
    const std::vector<RunSnapshot>& runs() const { return m_runs; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunSnapshot> m_runs;
};

} // namespace xt::widgets
