#pragma once
// The frame of a timeline table panel (op summary, trace diff): a filter box, a "group by
// category" switch and a CSV export button above a table. The table shows the panel's model
// through a proxy that sorts by the model's sort role and filters on the name column. Rows of
// small inputs are computed in place; big ones on the thread pool (JobTracker), so the GUI
// never waits.

#include "core/base/status.h"
#include "widgets/job_tracker.h"

#include <QString>
#include <QWidget>
#include <vector>

class QAbstractItemModel;
class QCheckBox;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QVBoxLayout;

namespace xt::widgets {

class TablePanel : public QWidget {
    Q_OBJECT
public:
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    void setGroupByCategory(bool on);
    bool groupByCategory() const;
    bool isBusy() const { return m_jobs->isRunning(); }
    // Inputs with more slices than this are computed in the background (default 200000).
    void setBackgroundThreshold(std::size_t slices) { m_backgroundSlices = slices; }
    // Writes the rows as shown (filtered and sorted) with core/export/op_summary_csv.h.
    virtual Status exportCsv(const QString& path) const = 0;

protected:
    struct Columns {
        int name;         // filtered by the filter box
        int category;     // shown only when grouping by category
        int sortRole;     // the model's role holding sortable values
        int initialSort;  // sorted descending on this column at first
        QString csvTitle; // the export dialog's title and proposed file name
        QString csvFile;
    };
    // Takes `model` (created without a parent) as its child.
    TablePanel(QAbstractItemModel* model, Columns columns, QWidget* parent);

    // The model rows in the order shown (filtered and sorted).
    std::vector<std::size_t> shownSourceRows() const;
    // Computes rows with compute() in place for at most the background threshold of slices,
    // else as a background job labelled `stage`; apply(result) runs on the GUI thread.
    template <class Compute, class Apply>
    void computeRows(std::size_t slices, const QString& stage, Compute compute, Apply apply) {
        if (slices <= m_backgroundSlices) {
            m_jobs->cancel();
            apply(compute());
            return;
        }
        m_jobs->startJob(
            [stage, compute = std::move(compute)](JobContext& ctx) {
                ctx.setStage(stage);
                return compute();
            },
            std::move(apply));
        updateLabels();
    }
    // What a derived panel recomputes when its input or the grouping changes, and how it
    // refreshes its labels (also when the filter or the busy state changes).
    virtual void recompute() = 0;
    virtual void updateLabels() = 0;

    QVBoxLayout* m_layout; // the tool row, then the table; panels add their labels
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_byCategory;
    QPushButton* m_export;
    JobTracker* m_jobs;
    bool m_rowsByCategory = false; // how the shown rows were computed

private:
    void exportWithDialog();

    Columns m_columns;
    std::size_t m_backgroundSlices = 200000;
};

} // namespace xt::widgets
