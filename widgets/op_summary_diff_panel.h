#pragma once
// Trace diff panel: the op summary diff of two traces, or of two time windows (steps) of one
// trace (core/timeline/op_summary_diff.h). OpSummaryDiffModel is the table (baseline A and
// candidate B count / total / avg / self with deltas, relative change; deltas red when slower,
// green when faster; ops on one side only marked), sorted by regression first; the panel adds a
// filter, "group by category", a summary line and CSV export. Big diffs run in the background.

#include "core/base/status.h"
#include "core/timeline/op_summary_diff.h"
#include "core/timeline/trace_store.h"
#include "widgets/job_tracker.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <QWidget>
#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

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

class OpSummaryDiffPanel : public QWidget {
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
    void setGroupByCategory(bool on);
    bool groupByCategory() const;

    const timeline::OpDiff& diff() const { return m_model->diff(); }
    const std::vector<timeline::OpDiffRow>& rows() const { return m_model->diff().rows; }
    OpSummaryDiffModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QString summaryText() const;
    bool isBusy() const { return m_jobs->isRunning(); }
    // Diffs of stores with more slices than this (together) run in the background (200000).
    void setBackgroundThreshold(std::size_t slices) { m_backgroundSlices = slices; }
    // Writes the rows as shown (filtered and sorted) with core/export/op_summary_csv.h.
    Status exportCsv(const QString& path) const;

signals:
    void nameActivated(const QString& name); // double-click
    void diffReady();

private:
    void recompute();
    void updateLabels();
    void exportWithDialog();

    std::shared_ptr<const timeline::TraceStore> m_a, m_b;
    timeline::OpDiffOptions m_options;
    bool m_rowsByCategory = false;
    QString m_labelA = QStringLiteral("A"), m_labelB = QStringLiteral("B");
    std::size_t m_backgroundSlices = 200000;
    OpSummaryDiffModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_byCategory;
    QLabel* m_summary;
    QPushButton* m_export;
    JobTracker* m_jobs;
};

} // namespace xt::widgets
