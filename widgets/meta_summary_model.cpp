#include "widgets/meta_summary_model.h"

#include "widgets/text_format.h"

#include <QFont>
#include <algorithm>

namespace xt::widgets {

MetaSummaryModel::MetaSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetaSummaryModel::setRun(RunSnapshot run) {
    beginResetModel();
    m_rows.clear();
    if (run && run->preview)
        addFromMetas(run->reader->files());
    else if (run)
        addIndexed(*run);
    endResetModel();
}

void MetaSummaryModel::addIndexed(const LoadedRun& run) {
    std::size_t partIndex = 0; // into run.partExtents
    for (const auto& rank : run.reader->ranks()) {
        Row total;
        total.rank = rank.rank();
        bool allFinal = true;
        for (const auto& part : rank.parts()) {
            Row r;
            r.rank = rank.rank();
            r.part = part->part().index;
            r.path = QString::fromStdString(part->part().path);
            r.size = part->part().size;
            r.extent = run.partExtents.at(partIndex++);
            const bool final = part->part().metaState == xdl::MetaState::Finalised;
            allFinal &= final;
            r.state =
                final ? tr("yes") : QString::fromUtf8(xdl::metaStateName(part->part().metaState));
            total.size += r.size;
            total.extent.include(r.extent);
            m_rows.push_back(std::move(r));
        }
        total.state = allFinal ? tr("yes") : tr("no");
        m_rows.push_back(std::move(total));
    }
}

void MetaSummaryModel::addFromMetas(const xdl::RunFiles& files) {
    for (const auto& rank : files.ranks) {
        Row total;
        total.rank = rank.rank;
        total.counted = false;
        for (const auto& part : rank.parts) {
            Row r;
            r.rank = rank.rank;
            r.part = part.index;
            r.path = QString::fromStdString(part.path);
            r.size = part.size;
            r.counted = false;
            const xdl::MetaInfo& m = part.meta; // a preview's parts are all finalised
            r.extent.include(m.gstepBegin, m.lstepBegin, m.timestampBegin);
            r.extent.include(m.gstepEnd, m.lstepEnd, m.timestampEnd);
            r.state = tr("yes");
            total.size += r.size;
            total.extent.include(r.extent);
            m_rows.push_back(std::move(r));
        }
        total.state = tr("yes");
        m_rows.push_back(std::move(total));
    }
}

int MetaSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int MetaSummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetaSummaryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size())) return {};
    const Row& r = m_rows[std::size_t(index.row())];
    if (role == Qt::ToolTipRole && !r.counted && index.column() == RecordsColumn)
        return tr("Counted once the run is indexed; the ranges are those of the .meta files");
    if (role == PathRole || (role == Qt::ToolTipRole && r.part > 0)) return r.path;
    if (role == Qt::FontRole && r.part == 0) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case RankColumn:
        return r.rank;
    case PartColumn:
        return r.part == 0 ? tr("all") : QString::number(r.part);
    case GstepColumn:
        return formatRange(r.extent.g0, r.extent.g1);
    case LstepColumn:
        return formatRange(r.extent.l0, r.extent.l1);
    case TimeColumn:
        return r.extent.t0 < 0 ? QStringLiteral("-")
                               : formatTimestampMs(r.extent.t0) + QStringLiteral(" .. ") +
                                     formatTimestampMs(r.extent.t1).mid(11);
    case DurationColumn:
        return r.extent.t0 < 0 ? QStringLiteral("-") : formatDurationMs(r.extent.t1 - r.extent.t0);
    case RecordsColumn:
        return r.counted ? QVariant(qulonglong(r.extent.records))
                         : QVariant(QStringLiteral("\u2026")); // as the Keys dock's
    case SizeColumn:
        return formatBytes(r.size);
    case FinalisedColumn:
        return r.state;
    }
    return {};
}

QVariant MetaSummaryModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case RankColumn:
        return tr("Rank");
    case PartColumn:
        return tr("Part");
    case GstepColumn:
        return tr("Global steps");
    case LstepColumn:
        return tr("Local steps");
    case TimeColumn:
        return tr("Wall time (UTC)");
    case DurationColumn:
        return tr("Duration");
    case RecordsColumn:
        return tr("Records");
    case SizeColumn:
        return tr("Size");
    case FinalisedColumn:
        return tr("Finalised");
    }
    return {};
}

} // namespace xt::widgets
