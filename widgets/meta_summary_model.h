#pragma once
// Per rank and part file of one run: step and wall-time ranges, duration, size, record count
// and whether the part was finalised. Ranges come from the record index (what is really in the
// file), so live and damaged parts are described too. A run shown from a preview of its first
// records lists every part with the ranges of its .meta file, its records still being counted.

#include "widgets/run_loader.h"

#include <QAbstractTableModel>

namespace xt::widgets {

class MetaSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns {
        RankColumn,
        PartColumn,
        GstepColumn,
        LstepColumn,
        TimeColumn,
        DurationColumn,
        RecordsColumn,
        SizeColumn,
        FinalisedColumn,
        ColumnCount
    };
    enum Roles { PathRole = Qt::UserRole }; // QString: the part file

    explicit MetaSummaryModel(QObject* parent = nullptr);
    void setRun(RunSnapshot run);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        int rank = 0;
        std::int64_t part = 0; // 0 on a rank total row
        QString path;
        PartExtent extent; // a rank total row: of all its parts
        std::uint64_t size = 0;
        // A rank total row: Finalised when all its parts are, else one of the others'.
        xdl::MetaState meta = xdl::MetaState::Finalised;
        bool counted = true; // extent.records is known (not a preview's part)
    };
    void addIndexed(const LoadedRun& run);
    void addFromMetas(const xdl::RunFiles& files);
    static Row partRow(int rank, const xdl::PartFile& part);
    // Appends the rows of one rank's parts, then its total row.
    void addRank(int rank, std::vector<Row> parts);
    std::vector<Row> m_rows;
};

} // namespace xt::widgets
