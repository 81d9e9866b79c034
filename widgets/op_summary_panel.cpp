#include "widgets/op_summary_panel.h"

#include "core/export/op_summary_csv.h"
#include "widgets/table_columns.h"
#include "widgets/trace_time_format.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
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
    : TablePanel(new OpSummaryModel,
                 {OpSummaryModel::NameColumn, OpSummaryModel::CategoryColumn,
                  OpSummaryModel::SortRole, OpSummaryModel::TotalColumn, tr("Export op summary"),
                  QStringLiteral("op_summary.csv")},
                 parent),
      m_model(static_cast<OpSummaryModel*>(m_proxy->sourceModel())), m_scope(new QLabel(this)),
      m_totals(new QLabel(this)) {
    fitColumnsToContents(m_view, OpSummaryModel::NameColumn);
    m_scope->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_scope, 1);
    bottom->addWidget(m_totals);
    m_layout->addLayout(bottom);

    connect(m_view, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { emit nameActivated(nameAt(i)); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& i) {
                if (i.isValid()) emit nameSelected(nameAt(i));
            });
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
    computeRows(
        store->sliceCount(), QStringLiteral("op summary"),
        [store, o] { return timeline::opSummary(*store, o); },
        [this, store, byCategory = o.byCategory](std::vector<OpStat> rows) {
            m_rowsByCategory = byCategory;
            m_model->setRows(store, std::move(rows));
            updateLabels();
            emit summaryReady();
        });
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
    for (const std::size_t r : shownSourceRows())
        shown.push_back(m_model->rows()[r]);
    return writeOpSummaryCsv(path.toStdString(), *m_model->store(), shown, m_rowsByCategory);
}

} // namespace xt::widgets
