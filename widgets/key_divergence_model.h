#pragma once
// The key table of a run comparison: one row per key of an analysis::RunDiff, keys present on
// one side only included (with a marker), ranked most divergent first: keys that differ by
// their first bit-exact difference (earliest first, then the largest relative difference),
// then keys on one side only, then keys without any difference. The ranking is the model's row
// order; views may sort by a column through SortRole (a QSortFilterProxyModel with column -1
// gives the ranking back).

#include "core/analysis/run_compare.h"

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <vector>

namespace xt::widgets {

struct DivergenceRow {
    enum class Side { Both, OnlyA, OnlyB };
    QString key;
    Side side = Side::Both;
    std::size_t stepsCompared = 0;
    std::optional<std::int64_t> firstDiffExact, firstDiffTolerance;
    std::optional<std::int64_t> firstNanOnlyA, firstNanOnlyB, firstInfOnlyA, firstInfOnlyB;
    double maxAbs = 0, maxRel = 0; // over the compared steps
    bool shapeMismatch = false;    // dtype or shape differ on some step
    std::size_t stepsOnlyA = 0, stepsOnlyB = 0;

    // Where a view should put its cursor for this key: the first difference of any kind.
    std::optional<std::int64_t> jumpStep() const;
    // Smallest first step of a NaN/Inf on one side only.
    std::optional<std::int64_t> firstNonFiniteOneSide() const;
};

// The rows of `diff` in divergence order (see the file comment).
std::vector<DivergenceRow> divergenceRows(const analysis::RunDiff& diff);

class KeyDivergenceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        KeyColumn,
        StatusColumn,
        FirstDiffColumn,
        FirstBeyondToleranceColumn,
        MaxAbsColumn,
        MaxRelColumn,
        NonFiniteColumn, // first NaN/Inf present on one side only
        StepsOnlyAColumn,
        StepsOnlyBColumn,
        ColumnCount
    };
    enum Role {
        KeyRole = Qt::UserRole + 1, // QString
        SortRole,                   // a number (missing steps sort last) or the key
        JumpStepRole,               // qint64, invalid when the key does not differ
    };

    explicit KeyDivergenceModel(QObject* parent = nullptr);

    void setDiff(std::shared_ptr<const analysis::RunDiff> diff);
    const std::shared_ptr<const analysis::RunDiff>& diff() const { return m_diff; }
    const std::vector<DivergenceRow>& rows() const { return m_rows; }
    // The row of `key`, or -1.
    int rowOfKey(const QString& key) const;
    // The KeyDiff of `key` (null for keys on one side only or not compared).
    const analysis::KeyDiff* keyDiff(const QString& key) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    std::shared_ptr<const analysis::RunDiff> m_diff;
    std::vector<DivergenceRow> m_rows;
};

} // namespace xt::widgets
