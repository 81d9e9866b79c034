#pragma once
// Trace diff panel: the op summary diff of two traces, or of two time windows (steps) of one
// trace (core/timeline/op_summary_diff.h). OpSummaryDiffModel is the table (baseline A and
// candidate B count / total / avg / self with deltas, relative change; deltas red when slower,
// green when faster; ops on one side only marked), sorted by regression first; the panel is a
// TablePanel (filter, "group by category", CSV export, big diffs in the background) with a
// summary line above the table.

#include "core/base/status.h"
#include "core/timeline/op_summary_diff.h"
#include "core/timeline/trace_store.h"
#include "widgets/table_panel.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <memory>

class QLabel;

namespace xt::widgets {

class OpSummaryDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        CategoryColumn,
        StatusColumn,
        CountAColumn,
        CountBColumn,
        CountDeltaColumn,
        TotalAColumn,
        TotalBColumn,
        TotalDeltaColumn,
        RelativeColumn,
        AvgAColumn,
        AvgBColumn,
        AvgDeltaColumn,
        SelfAColumn,
        SelfBColumn,
        SelfDeltaColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit OpSummaryDiffModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setDiff(timeline::OpDiff diff);
    const timeline::OpDiff& diff() const { return m_diff; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    static QColor slowerColor(); // red: the candidate takes longer
    static QColor fasterColor(); // green

private:
    timeline::OpDiff m_diff;
};

class OpSummaryDiffPanel : public TablePanel {
    Q_OBJECT
public:
    explicit OpSummaryDiffPanel(QWidget* parent = nullptr);

    // Baseline `a` against candidate `b`, each restricted to its window (whole trace by default).
    // `a` and `b` may be the same store.
    void setStores(std::shared_ptr<const timeline::TraceStore> a,
                   std::shared_ptr<const timeline::TraceStore> b, timeline::TimeWindow windowA = {},
                   timeline::TimeWindow windowB = {});
    // Step `stepA` of `a` against step `stepB` of `b` (marker names, e.g. "ProfilerStep#3"); the
    // markers themselves are left out. False (and nothing changes) when a step is missing.
    bool setSteps(std::shared_ptr<const timeline::TraceStore> a, const QString& stepA,
                  std::shared_ptr<const timeline::TraceStore> b, const QString& stepB);
    // Names shown for the two sides ("A"/"B" by default), e.g. file names.
    void setLabels(const QString& a, const QString& b);

    const timeline::OpDiff& diff() const { return m_model->diff(); }
    const std::vector<timeline::OpDiffRow>& rows() const { return m_model->diff().rows; }
    OpSummaryDiffModel* model() const { return m_model; }
    QString summaryText() const;
    Status exportCsv(const QString& path) const override;

signals:
    void nameActivated(const QString& name); // double-click
    void diffReady();

protected:
    void recompute() override;
    void updateLabels() override;

private:
    std::shared_ptr<const timeline::TraceStore> m_a, m_b;
    timeline::OpDiffOptions m_options;
    QString m_labelA = QStringLiteral("A"), m_labelB = QStringLiteral("B");
    OpSummaryDiffModel* m_model;
    QLabel* m_summary;
};

} // namespace xt::widgets
