#pragma once
// Op summary panel of the timeline page (key_averages of the whole trace or of a selected time
// range): OpSummaryModel is the table (name, category, count, total, self, avg, min, max, times
// with units, numbers under SortRole for the proxy), OpSummaryPanel adds a filter box, a
// "group by category" switch, the scope label and CSV export of the rows as shown.
// Summaries of big traces are computed on the thread pool (JobTracker); the GUI never waits.

#include "core/base/status.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/trace_store.h"
#include "widgets/job_tracker.h"

#include <QAbstractTableModel>
#include <QWidget>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace xt::widgets {

class OpSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        CategoryColumn,
        CountColumn,
        TotalColumn,
        SelfColumn,
        AvgColumn,
        MinColumn,
        MaxColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers as numbers, names as text
        NameIdRole,                  // the StringId of the row's name (quint32)
    };

    explicit OpSummaryModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setRows(std::shared_ptr<const timeline::TraceStore> store,
                 std::vector<timeline::OpStat> rows);
    const std::vector<timeline::OpStat>& rows() const { return m_rows; }
    const timeline::TraceStore* store() const { return m_store.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const timeline::TraceStore> m_store;
    std::vector<timeline::OpStat> m_rows;
};

class OpSummaryPanel : public QWidget {
    Q_OBJECT
public:
    explicit OpSummaryPanel(QWidget* parent = nullptr);

    void setStore(std::shared_ptr<const timeline::TraceStore> store);
    // Slices starting in [t0, t1) (store nanoseconds); clearRange() goes back to the whole trace.
    void setRange(qint64 t0, qint64 t1);
    void clearRange();
    void setGroupByCategory(bool on);
    bool groupByCategory() const;

    // The summary shown (model order: total time, largest first).
    const std::vector<timeline::OpStat>& rows() const { return m_model->rows(); }
    OpSummaryModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QString scopeText() const;
    bool isBusy() const { return m_jobs->isRunning(); }
    // Traces with more slices than this are summarised in the background (default 200000).
    void setBackgroundThreshold(std::size_t slices) { m_backgroundSlices = slices; }
    // Writes the rows as shown (filtered and sorted) with core/export/op_summary_csv.h.
    Status exportCsv(const QString& path) const;

signals:
    void nameActivated(quint32 nameId); // double-click
    void nameSelected(quint32 nameId);  // current row changed
    void summaryReady();                // the rows were replaced

private:
    void recompute();
    void updateLabels();
    void exportWithDialog();
    quint32 nameAt(const QModelIndex& proxyIndex) const;

    std::shared_ptr<const timeline::TraceStore> m_store;
    qint64 m_t0 = timeline::kNoTime, m_t1 = timeline::kNoTime;
    bool m_rowsByCategory = false; // how the shown rows were computed
    std::size_t m_backgroundSlices = 200000;
    OpSummaryModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_byCategory;
    QLabel* m_scope;
    QLabel* m_totals;
    QPushButton* m_export;
    JobTracker* m_jobs;
};

} // namespace xt::widgets
