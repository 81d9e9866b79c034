#include "widgets/report_table_view.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

namespace xt::widgets {

void ReportTableModel::setTable(ReportTable table) {
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

int ReportTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_table.rows.size());
}

int ReportTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_table.columns.size());
}

QVariant ReportTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const auto& row = m_table.rows[std::size_t(index.row())];
    if (std::size_t(index.column()) >= row.size()) return {};
    const ReportCell& c = row[std::size_t(index.column())];
    const bool isNumber = !std::isnan(c.value);
    switch (role) {
    case Qt::DisplayRole:
        return QString::fromStdString(c.text);
    case Qt::ToolTipRole:
        return QString::fromStdString(c.text);
    case Qt::TextAlignmentRole:
        return isNumber ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case SortRole:
        return isNumber ? QVariant(c.value) : QVariant(QString::fromStdString(c.text));
    default:
        return {};
    }
}

QVariant ReportTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    return QString::fromStdString(m_table.columns[std::size_t(section)]);
}

ReportTableView::ReportTableView(const QString& caption, QWidget* parent)
    : QWidget(parent), m_model(new ReportTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_view(new QTableView(this)),
      m_caption(new QLabel(caption, this)), m_export(new QPushButton(tr("Export CSV..."), this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ReportTableModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // model order until a header is clicked
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    top->addWidget(m_caption, 1);
    top->addWidget(m_export);
    v->addLayout(top);
    v->addWidget(m_view, 1);
    connect(m_export, &QPushButton::clicked, this, &ReportTableView::exportWithDialog);
    connect(m_view, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { emit rowActivated(m_proxy->mapToSource(i).row()); });
}

void ReportTableView::setTable(ReportTable table) {
    m_model->setTable(std::move(table));
    m_view->resizeColumnsToContents();
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_view->setColumnWidth(c, std::min(m_view->columnWidth(c), 360));
}

Status ReportTableView::exportCsv(const QString& path) const {
    ReportTable shown;
    shown.name = m_model->table().name;
    shown.columns = m_model->table().columns;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        shown.rows.push_back(
            m_model->table().rows[std::size_t(m_proxy->mapToSource(m_proxy->index(r, 0)).row())]);
    return writeReportTableCsv(path.toStdString(), shown);
}

void ReportTableView::exportWithDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export table"), QString::fromStdString(m_model->table().name) + ".csv",
        tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    const Status st = exportCsv(path);
    if (!st) QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(st.toString()));
}

} // namespace xt::widgets
