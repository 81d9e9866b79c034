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
        std::vector<Row> parts;
        for (const auto& part : rank.parts()) {
            Row r = partRow(rank.rank(), part->part());
            r.extent = run.partExtents.at(partIndex++);
            parts.push_back(std::move(r));
        }
        addRank(rank.rank(), std::move(parts));
    }
}

void MetaSummaryModel::addFromMetas(const xdl::RunFiles& files) {
    for (const auto& rank : files.ranks) {
        std::vector<Row> parts;
        for (const auto& part : rank.parts) {
            Row r = partRow(rank.rank, part);
            r.counted = false;
            const xdl::MetaInfo& m = part.meta; // a preview's parts are all finalised
            r.extent.include(m.gstepBegin, m.lstepBegin, m.timestampBegin);
            r.extent.include(m.gstepEnd, m.lstepEnd, m.timestampEnd);
            parts.push_back(std::move(r));
        }
        addRank(rank.rank, std::move(parts));
    }
}

MetaSummaryModel::Row MetaSummaryModel::partRow(int rank, const xdl::PartFile& part) {
    Row r;
    r.rank = rank;
    r.part = part.index;
    r.path = QString::fromStdString(part.path);
    r.size = part.size;
    r.meta = part.metaState;
    return r;
}

void MetaSummaryModel::addRank(int rank, std::vector<Row> parts) {
    Row total;
    total.rank = rank;
    for (Row& r : parts) {
        total.size += r.size;
        total.extent.include(r.extent);
        total.counted = total.counted && r.counted;
        if (r.meta != xdl::MetaState::Finalised) total.meta = r.meta;
        m_rows.push_back(std::move(r));
    }
    m_rows.push_back(std::move(total));
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
        if (r.meta == xdl::MetaState::Finalised) return tr("yes");
        return r.part == 0 ? tr("no") : QString::fromUtf8(xdl::metaStateName(r.meta));
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
