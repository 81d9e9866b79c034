#include "widgets/op_summary_diff_panel.h"

#include "core/export/op_summary_csv.h"
#include "widgets/table_columns.h"
#include "widgets/trace_time_format.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace xt::widgets {

using timeline::OpDiff;
using timeline::OpDiffRow;
using timeline::OpPresence;

QColor OpSummaryDiffModel::slowerColor() {
    return QColor(0xc6, 0x28, 0x28);
}

QColor OpSummaryDiffModel::fasterColor() {
    return QColor(0x2e, 0x7d, 0x32);
}

void OpSummaryDiffModel::setDiff(OpDiff diff) {
    beginResetModel();
    m_diff = std::move(diff);
    endResetModel();
}

int OpSummaryDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_diff.rows.size());
}

int OpSummaryDiffModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString signedDuration(double ns) {
    return ns > 0 ? QStringLiteral("+") + formatTraceDuration(ns) : formatTraceDuration(ns);
}

} // namespace

QVariant OpSummaryDiffModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_diff.rows.size())) return {};
    const OpDiffRow& r = m_diff.rows[std::size_t(index.row())];
    const int c = index.column();
    // The number behind a column (ns for times); NaN for the relative change when undefined.
    auto number = [&]() -> double {
        switch (c) {
        case CountAColumn:
            return double(r.countA);
        case CountBColumn:
            return double(r.countB);
        case CountDeltaColumn:
            return double(r.countDelta());
        case TotalAColumn:
            return double(r.totalA);
        case TotalBColumn:
            return double(r.totalB);
        case TotalDeltaColumn:
            return double(r.totalDelta());
        case RelativeColumn:
            return r.relativeChange().value_or(std::nan(""));
        case AvgAColumn:
            return r.avgA;
        case AvgBColumn:
            return r.avgB;
        case AvgDeltaColumn:
            return r.avgDelta();
        case SelfAColumn:
            return double(r.selfA);
        case SelfBColumn:
            return double(r.selfB);
        case SelfDeltaColumn:
            return double(r.selfDelta());
        }
        return 0;
    };
    const bool isDelta = c == CountDeltaColumn || c == TotalDeltaColumn || c == RelativeColumn ||
                         c == AvgDeltaColumn || c == SelfDeltaColumn;
    switch (role) {
    case Qt::DisplayRole:
        switch (c) {
        case NameColumn:
            return QString::fromStdString(r.name);
        case CategoryColumn:
            return QString::fromStdString(r.cat);
        case StatusColumn:
            return r.presence == OpPresence::Both           ? QString()
                   : r.presence == OpPresence::OnlyBaseline ? tr("only in A")
                                                            : tr("only in B");
        case CountAColumn:
        case CountBColumn:
            return QString::number(qlonglong(number()));
        case CountDeltaColumn:
            return r.countDelta() > 0 ? QStringLiteral("+%1").arg(r.countDelta())
                                      : QString::number(r.countDelta());
        case RelativeColumn: {
            const auto rel = r.relativeChange();
            if (!rel) return tr("new");
            return QStringLiteral("%1%2%").arg(*rel > 0 ? "+" : "").arg(*rel * 100, 0, 'f', 1);
        }
        default:
            return isDelta ? signedDuration(number()) : formatTraceDuration(number());
        }
    case SortRole:
        switch (c) {
        case NameColumn:
            return QString::fromStdString(r.name);
        case CategoryColumn:
            return QString::fromStdString(r.cat);
        case StatusColumn:
            return int(r.presence);
        case RelativeColumn:
            // Undefined (no baseline) sorts as the largest increase.
            return r.relativeChange().value_or(std::numeric_limits<double>::max());
        default:
            return number();
        }
    case Qt::ForegroundRole:
        if (isDelta) {
            const double v = c == RelativeColumn && !r.relativeChange() ? 1.0 : number();
            if (v > 0) return slowerColor();
            if (v < 0) return fasterColor();
        }
        if (c == StatusColumn)
            return r.presence == OpPresence::OnlyCandidate ? slowerColor() : fasterColor();
        return {};
    case Qt::BackgroundRole:
        if (r.presence == OpPresence::OnlyCandidate) return QColor(0xc6, 0x28, 0x28, 28);
        if (r.presence == OpPresence::OnlyBaseline) return QColor(0x2e, 0x7d, 0x32, 28);
        return {};
    case Qt::ToolTipRole:
        if (c == NameColumn) return QString::fromStdString(r.name);
        return {};
    case Qt::TextAlignmentRole:
        return c >= CountAColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                 : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    return {};
}

QVariant OpSummaryDiffModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Name",         "Category",     "Status",  "Count A",
                                         "Count B",      "\u0394 Count", "Total A", "Total B",
                                         "\u0394 Total", "\u0394 %",     "Avg A",   "Avg B",
                                         "\u0394 Avg",   "Self A",       "Self B",  "\u0394 Self"};
    return section >= 0 && section < ColumnCount ? QString::fromUtf8(kNames[section]) : QVariant();
}

OpSummaryDiffPanel::OpSummaryDiffPanel(QWidget* parent)
    : TablePanel(new OpSummaryDiffModel,
                 {OpSummaryDiffModel::NameColumn, OpSummaryDiffModel::CategoryColumn,
                  OpSummaryDiffModel::SortRole, OpSummaryDiffModel::TotalDeltaColumn,
                  tr("Export trace diff"), QStringLiteral("trace_diff.csv")},
                 parent),
      m_model(static_cast<OpSummaryDiffModel*>(m_proxy->sourceModel())),
      m_summary(new QLabel(this)) {
    // Regression first (the initial sort): the proxy's sort is stable, so ties keep the core
    // diff's order.
    fitColumnsToContents(m_view, OpSummaryDiffModel::NameColumn);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_layout->insertWidget(1, m_summary);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        emit nameActivated(i.siblingAtColumn(OpSummaryDiffModel::NameColumn).data().toString());
    });
    updateLabels();
}

void OpSummaryDiffPanel::setStores(std::shared_ptr<const timeline::TraceStore> a,
                                   std::shared_ptr<const timeline::TraceStore> b,
                                   timeline::TimeWindow windowA, timeline::TimeWindow windowB) {
    m_a = std::move(a);
    m_b = std::move(b);
    m_options.windowA = windowA;
    m_options.windowB = windowB;
    m_options.excludeNames.clear();
    recompute();
}

bool OpSummaryDiffPanel::setSteps(std::shared_ptr<const timeline::TraceStore> a,
                                  const QString& stepA,
                                  std::shared_ptr<const timeline::TraceStore> b,
                                  const QString& stepB) {
    if (!a || !b) return false;
    const std::string sa = stepA.toStdString(), sb = stepB.toStdString();
    const auto wa = timeline::findStepWindow(*a, sa);
    const auto wb = timeline::findStepWindow(*b, sb);
    if (!wa || !wb) return false;
    m_a = std::move(a);
    m_b = std::move(b);
    m_options.windowA = *wa;
    m_options.windowB = *wb;
    m_options.excludeNames = {sa, sb};
    recompute();
    return true;
}

void OpSummaryDiffPanel::setLabels(const QString& a, const QString& b) {
    m_labelA = a;
    m_labelB = b;
    updateLabels();
}

void OpSummaryDiffPanel::recompute() {
    if (!m_a || !m_b) {
        m_jobs->cancel();
        m_model->setDiff({});
        updateLabels();
        emit diffReady();
        return;
    }
    timeline::OpDiffOptions o = m_options;
    o.byCategory = m_byCategory->isChecked();
    auto a = m_a, b = m_b;
    computeRows(
        a->sliceCount() + (a == b ? 0 : b->sliceCount()), QStringLiteral("op summary diff"),
        [a, b, o] { return timeline::diffOpSummaries(*a, *b, o); },
        [this, byCategory = o.byCategory](OpDiff d) {
            m_rowsByCategory = byCategory;
            m_model->setDiff(std::move(d));
            updateLabels();
            emit diffReady();
        });
}

QString OpSummaryDiffPanel::summaryText() const {
    if (!m_a || !m_b) return tr("No traces to compare.");
    const OpDiff& d = m_model->diff();
    auto scope = [](const timeline::TraceStore& st, const timeline::TimeWindow& w) {
        if (w.whole()) return tr("whole trace");
        const std::int64_t origin = st.beginTime() == timeline::kNoTime ? 0 : st.beginTime();
        return formatTraceRange(w.t0, w.t1, origin);
    };
    const double delta = double(d.totalB - d.totalA);
    QString text =
        tr("A: %1 (%2), %3 in %4 slices. B: %5 (%6), %7 in %8 slices. \u0394 total %9 "
           "over %10 ops; %11 only in A, %12 only in B.")
            .arg(m_labelA, scope(*m_a, m_options.windowA), formatTraceDuration(double(d.totalA)))
            .arg(d.countA)
            .arg(m_labelB, scope(*m_b, m_options.windowB), formatTraceDuration(double(d.totalB)))
            .arg(d.countB)
            .arg(signedDuration(delta))
            .arg(d.rows.size())
            .arg(d.onlyA)
            .arg(d.onlyB);
    return isBusy() ? text + tr(" (computing...)") : text;
}

void OpSummaryDiffPanel::updateLabels() {
    m_summary->setText(summaryText());
    m_export->setEnabled(!m_model->diff().rows.empty());
}

Status OpSummaryDiffPanel::exportCsv(const QString& path) const {
    OpDiff shown = m_model->diff();
    shown.rows.clear();
    for (const std::size_t r : shownSourceRows())
        shown.rows.push_back(m_model->diff().rows[r]);
    return writeOpDiffCsv(path.toStdString(), shown, m_rowsByCategory);
}

} // namespace xt::widgets
