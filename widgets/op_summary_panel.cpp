#include "widgets/op_summary_panel.h"

#include "core/export/op_summary_csv.h"
#include "widgets/table_columns.h"
#include "widgets/trace_time_format.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace xt::widgets {

using timeline::OpStat;

void OpSummaryModel::setRows(std::shared_ptr<const timeline::TraceStore> store,
                             std::vector<OpStat> rows) {
    beginResetModel();
    m_store = std::move(store);
    m_rows = std::move(rows);
    endResetModel();
}

int OpSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int OpSummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpSummaryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_store || index.row() >= int(m_rows.size())) return {};
    const OpStat& r = m_rows[std::size_t(index.row())];
    auto text = [&](timeline::StringId id) {
        const auto v = m_store->str(id);
        return QString::fromUtf8(v.data(), qsizetype(v.size()));
    };
    auto ns = [&]() -> double {
        switch (index.column()) {
        case TotalColumn:
            return double(r.totalNs);
        case SelfColumn:
            return double(r.selfNs);
        case AvgColumn:
            return r.avgNs();
        case MinColumn:
            return double(r.minNs);
        case MaxColumn:
            return double(r.maxNs);
        }
        return 0;
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return text(r.name);
        case CategoryColumn:
            return text(r.cat);
        case CountColumn:
            return QString::number(r.count);
        default:
            return formatTraceDuration(ns());
        }
    case SortRole:
        switch (index.column()) {
        case NameColumn:
            return text(r.name);
        case CategoryColumn:
            return text(r.cat);
        case CountColumn:
            return qulonglong(r.count);
        default:
            return ns();
        }
    case NameIdRole:
        return quint32(r.name);
    case Qt::ToolTipRole:
        if (index.column() == NameColumn) return text(r.name);
        if (index.column() >= TotalColumn)
            return QStringLiteral("%1 ns").arg(ns(), 0, 'f', index.column() == AvgColumn ? 1 : 0);
        return {};
    case Qt::TextAlignmentRole:
        return index.column() >= CountColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                             : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    return {};
}

QVariant OpSummaryModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Name", "Category", "Count", "Total",
                                         "Self", "Avg",      "Min",   "Max"};
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(kNames[section])
                                                 : QVariant();
}

OpSummaryPanel::OpSummaryPanel(QWidget* parent)
    : QWidget(parent), m_model(new OpSummaryModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_filter(new QLineEdit(this)),
      m_byCategory(new QCheckBox(tr("Group by category"), this)), m_scope(new QLabel(this)),
      m_totals(new QLabel(this)), m_export(new QPushButton(tr("Export CSV..."), this)),
      m_jobs(new JobTracker(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(OpSummaryModel::SortRole);
    m_proxy->setFilterKeyColumn(OpSummaryModel::NameColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_view->horizontalHeader()->setSortIndicator(OpSummaryModel::TotalColumn, Qt::DescendingOrder);
    m_view->setSortingEnabled(true);
    m_view->setColumnHidden(OpSummaryModel::CategoryColumn, true);
    m_view->setTextElideMode(Qt::ElideMiddle);
    fitColumnsToContents(m_view, OpSummaryModel::NameColumn);

    m_filter->setPlaceholderText(tr("Filter ops"));
    m_filter->setClearButtonEnabled(true);
    m_scope->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_byCategory);
    top->addWidget(m_export);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_scope, 1);
    bottom->addWidget(m_totals);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(2, 2, 2, 2);
    lay->addLayout(top);
    lay->addWidget(m_view, 1);
    lay->addLayout(bottom);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_filter, &QLineEdit::textChanged, this, &OpSummaryPanel::updateLabels);
    connect(m_byCategory, &QCheckBox::toggled, this, [this](bool on) {
        m_view->setColumnHidden(OpSummaryModel::CategoryColumn, !on);
        recompute();
    });
    connect(m_export, &QPushButton::clicked, this, &OpSummaryPanel::exportWithDialog);
    connect(m_view, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { emit nameActivated(nameAt(i)); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& i) {
                if (i.isValid()) emit nameSelected(nameAt(i));
            });
    connect(m_jobs, &JobTracker::runningChanged, this, &OpSummaryPanel::updateLabels);
    updateLabels();
}

quint32 OpSummaryPanel::nameAt(const QModelIndex& proxyIndex) const {
    return proxyIndex.siblingAtColumn(OpSummaryModel::NameColumn)
        .data(OpSummaryModel::NameIdRole)
        .toUInt();
}

void OpSummaryPanel::setStore(std::shared_ptr<const timeline::TraceStore> store) {
    m_store = std::move(store);
    m_t0 = m_t1 = timeline::kNoTime;
    m_model->setRows(nullptr, {});
    recompute();
}

void OpSummaryPanel::setRange(qint64 t0, qint64 t1) {
    if (t1 < t0) std::swap(t0, t1);
    m_t0 = t0;
    m_t1 = t1;
    recompute();
}

void OpSummaryPanel::clearRange() {
    m_t0 = m_t1 = timeline::kNoTime;
    recompute();
}

void OpSummaryPanel::setGroupByCategory(bool on) {
    m_byCategory->setChecked(on);
}

bool OpSummaryPanel::groupByCategory() const {
    return m_byCategory->isChecked();
}

void OpSummaryPanel::recompute() {
    if (!m_store) {
        m_jobs->cancel();
        m_model->setRows(nullptr, {});
        updateLabels();
        emit summaryReady();
        return;
    }
    timeline::OpSummaryOptions o;
    o.byCategory = m_byCategory->isChecked();
    o.t0 = m_t0;
    o.t1 = m_t1;
    auto store = m_store;
    if (store->sliceCount() <= m_backgroundSlices) {
        m_jobs->cancel();
        m_rowsByCategory = o.byCategory;
        m_model->setRows(store, timeline::opSummary(*store, o));
        updateLabels();
        emit summaryReady();
        return;
    }
    m_jobs->startJob(
        [store, o](JobContext& ctx) {
            ctx.setStage(QStringLiteral("op summary"));
            return timeline::opSummary(*store, o);
        },
        [this, store, byCategory = o.byCategory](std::vector<OpStat> rows) {
            m_rowsByCategory = byCategory;
            m_model->setRows(store, std::move(rows));
            updateLabels();
            emit summaryReady();
        });
    updateLabels();
}

QString OpSummaryPanel::scopeText() const {
    if (!m_store) return tr("No trace");
    if (m_t0 == timeline::kNoTime) return tr("Whole trace");
    const std::int64_t origin =
        m_store->beginTime() == timeline::kNoTime ? 0 : m_store->beginTime();
    return formatTraceRange(m_t0, m_t1, origin);
}

void OpSummaryPanel::updateLabels() {
    m_scope->setText(isBusy() ? scopeText() + tr(" (computing...)") : scopeText());
    std::uint64_t slices = 0;
    std::int64_t total = 0;
    for (const OpStat& r : m_model->rows()) {
        slices += r.count;
        total += r.totalNs;
    }
    const int shown = m_proxy->rowCount();
    const QString ops = shown == int(m_model->rows().size())
                            ? tr("%1 ops").arg(shown)
                            : tr("%1 of %2 ops").arg(shown).arg(m_model->rows().size());
    m_totals->setText(
        tr("%1, %2 slices, %3 total").arg(ops).arg(slices).arg(formatTraceDuration(double(total))));
    m_export->setEnabled(!m_model->rows().empty());
}

Status OpSummaryPanel::exportCsv(const QString& path) const {
    if (!m_model->store()) return Status(ErrorCode::InvalidArgument, "no op summary to export");
    std::vector<OpStat> shown;
    shown.reserve(std::size_t(m_proxy->rowCount()));
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        shown.push_back(
            m_model->rows()[std::size_t(m_proxy->mapToSource(m_proxy->index(r, 0)).row())]);
    return writeOpSummaryCsv(path.toStdString(), *m_model->store(), shown, m_rowsByCategory);
}

void OpSummaryPanel::exportWithDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export op summary"), QStringLiteral("op_summary.csv"), tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    const Status st = exportCsv(path);
    if (!st) QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(st.toString()));
}

} // namespace xt::widgets
