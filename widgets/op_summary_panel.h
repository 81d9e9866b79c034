#pragma once
// Op summary panel of the timeline page (key_averages of the whole trace or of a selected time
// range): OpSummaryModel is the table (name, category, count, total, self, avg, min, max, times
// with units, numbers under SortRole for the proxy); OpSummaryPanel is a TablePanel (filter,
// "group by category", CSV export of the rows as shown, big traces summarised in the background)
// with the scope and totals below the table.

#include "core/base/status.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/trace_store.h"
#include "widgets/table_panel.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

class QLabel;

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

class OpSummaryPanel : public TablePanel {
    Q_OBJECT
public:
    explicit OpSummaryPanel(QWidget* parent = nullptr);

    void setStore(std::shared_ptr<const timeline::TraceStore> store);
    // Slices starting in [t0, t1) (store nanoseconds); clearRange() goes back to the whole trace.
    void setRange(qint64 t0, qint64 t1);
    void clearRange();

    // The summary shown (model order: total time, largest first).
    const std::vector<timeline::OpStat>& rows() const { return m_model->rows(); }
    OpSummaryModel* model() const { return m_model; }
    QString scopeText() const;
    Status exportCsv(const QString& path) const override;

signals:
    void nameActivated(quint32 nameId); // double-click
    void nameSelected(quint32 nameId);  // current row changed
    void summaryReady();                // the rows were replaced

protected:
    void recompute() override;
    void updateLabels() override;

private:
    quint32 nameAt(const QModelIndex& proxyIndex) const;

    std::shared_ptr<const timeline::TraceStore> m_store;
    qint64 m_t0 = timeline::kNoTime, m_t1 = timeline::kNoTime;
    OpSummaryModel* m_model;
    QLabel* m_scope;
    QLabel* m_totals;
};

} // namespace xt::widgets
