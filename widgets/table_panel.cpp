#include "widgets/table_panel.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace xt::widgets {

TablePanel::TablePanel(QAbstractItemModel* model, Columns columns, QWidget* parent)
    : QWidget(parent), m_layout(new QVBoxLayout(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_filter(new QLineEdit(this)),
      m_byCategory(new QCheckBox(tr("Group by category"), this)),
      m_export(new QPushButton(tr("Export CSV..."), this)), m_jobs(new JobTracker(this)),
      m_columns(std::move(columns)) {
    model->setParent(this);
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(m_columns.sortRole);
    m_proxy->setFilterKeyColumn(m_columns.name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_view->horizontalHeader()->setSortIndicator(m_columns.initialSort, Qt::DescendingOrder);
    m_view->setSortingEnabled(true);
    m_view->setColumnHidden(m_columns.category, true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_filter->setPlaceholderText(tr("Filter ops"));
    m_filter->setClearButtonEnabled(true);

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_byCategory);
    top->addWidget(m_export);
    m_layout->setContentsMargins(2, 2, 2, 2);
    m_layout->addLayout(top);
    m_layout->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_filter, &QLineEdit::textChanged, this, [this] { updateLabels(); });
    connect(m_byCategory, &QCheckBox::toggled, this, [this](bool on) {
        m_view->setColumnHidden(m_columns.category, !on);
        recompute();
    });
    connect(m_export, &QPushButton::clicked, this, &TablePanel::exportWithDialog);
    connect(m_jobs, &JobTracker::runningChanged, this, [this] { updateLabels(); });
}

void TablePanel::setGroupByCategory(bool on) {
    m_byCategory->setChecked(on);
}

bool TablePanel::groupByCategory() const {
    return m_byCategory->isChecked();
}

std::vector<std::size_t> TablePanel::shownSourceRows() const {
    std::vector<std::size_t> rows;
    rows.reserve(std::size_t(m_proxy->rowCount()));
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        rows.push_back(std::size_t(m_proxy->mapToSource(m_proxy->index(r, 0)).row()));
    return rows;
}

void TablePanel::exportWithDialog() {
    const QString path = QFileDialog::getSaveFileName(this, m_columns.csvTitle, m_columns.csvFile,
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    const Status st = exportCsv(path);
    if (!st) QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(st.toString()));
}

} // namespace xt::widgets
