#pragma once
// A table of core/export/ranks_report.h in the GUI: ReportTableModel shows a ReportTable (numbers
// right-aligned and sorted as numbers), ReportTableView adds a sortable view, a caption and
// "Export CSV..." that writes the rows as shown (sorted) in the same CSV as `xtrace
// timeline-ranks --csv`.

#include "core/base/status.h"
#include "core/export/ranks_report.h"

#include <QAbstractTableModel>
#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace xt::widgets {

class ReportTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ReportTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    void setTable(ReportTable table);
    const ReportTable& table() const { return m_table; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    ReportTable m_table;
};

class ReportTableView : public QWidget {
    Q_OBJECT
public:
    explicit ReportTableView(const QString& caption, QWidget* parent = nullptr);

    void setTable(ReportTable table);
    ReportTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QPushButton* exportButton() const { return m_export; }
    // The rows in the view's order as CSV (reportTableCsv), written atomically.
    Status exportCsv(const QString& path) const;

signals:
    void rowActivated(int sourceRow); // double click

private:
    void exportWithDialog();

    ReportTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_caption;
    QPushButton* m_export;
};

} // namespace xt::widgets
