#include "widgets/run_browser_model.h"

#include "widgets/text_format.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>

namespace xt::widgets {

namespace {

// internalId: level (2 bits) | run (20) | rank position (20) | part (20).
constexpr quintptr kMask = (quintptr(1) << 20) - 1;
quintptr makeId(int level, int run, int rank, int part) {
    return quintptr(level) << 60 | quintptr(run) << 40 | quintptr(rank) << 20 | quintptr(part);
}
int levelOf(quintptr id) {
    return int(id >> 60);
}
int runOf(quintptr id) {
    return int(id >> 40 & kMask);
}
int rankOf(quintptr id) {
    return int(id >> 20 & kMask);
}
int partOf(quintptr id) {
    return int(id & kMask);
}

QString partState(const xdl::PartFile& p) {
    switch (p.metaState) {
    case xdl::MetaState::Finalised:
        return QObject::tr("finalised");
    case xdl::MetaState::Unfinalised:
        return QObject::tr("live");
    case xdl::MetaState::Missing:
        return QObject::tr("no meta");
    case xdl::MetaState::Corrupt:
        return QObject::tr("damaged");
    }
    return {};
}

QString rankState(const xdl::RankFiles& r) {
    bool live = false;
    for (const auto& p : r.parts) {
        if (p.metaState == xdl::MetaState::Corrupt) return QObject::tr("damaged");
        if (p.metaState != xdl::MetaState::Finalised) live = true;
    }
    if (!r.missingIndices.empty()) return QObject::tr("damaged");
    return live ? QObject::tr("live") : QObject::tr("finalised");
}

} // namespace

RunBrowserModel::RunBrowserModel(QObject* parent) : QAbstractItemModel(parent) {}

void RunBrowserModel::setRuns(std::vector<RunSnapshot> runs) {
    beginResetModel();
    m_runs = std::move(runs);
    endResetModel();
}

void RunBrowserModel::replaceRun(const RunSnapshot& before, const RunSnapshot& after) {
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i] == before) {
            m_runs[i] = after;
            const QModelIndex row = index(int(i), 0);
            emit dataChanged(row, index(int(i), ColumnCount - 1));
        }
}

QModelIndex RunBrowserModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent)) return {};
    if (!parent.isValid()) return createIndex(row, column, makeId(0, row, 0, 0));
    const quintptr p = parent.internalId();
    if (levelOf(p) == 0) return createIndex(row, column, makeId(1, runOf(p), row, 0));
    return createIndex(row, column, makeId(2, runOf(p), rankOf(p), row));
}

QModelIndex RunBrowserModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const quintptr id = child.internalId();
    switch (levelOf(id)) {
    case 1:
        return createIndex(runOf(id), 0, makeId(0, runOf(id), 0, 0));
    case 2:
        return createIndex(rankOf(id), 0, makeId(1, runOf(id), rankOf(id), 0));
    default:
        return {};
    }
}

int RunBrowserModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return int(m_runs.size());
    if (parent.column() != 0) return 0;
    const quintptr id = parent.internalId();
    const auto& files = m_runs[std::size_t(runOf(id))]->reader->files();
    if (levelOf(id) == 0) return int(files.ranks.size());
    if (levelOf(id) == 1) return int(files.ranks[std::size_t(rankOf(id))].parts.size());
    return 0;
}

int RunBrowserModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant RunBrowserModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const quintptr id = index.internalId();
    const LoadedRun& run = *m_runs[std::size_t(runOf(id))];
    const auto& files = run.reader->files();
    const int level = levelOf(id);
    if (role == RunIndexRole) return runOf(id);
    if (role == RankRole) return level == 0 ? -1 : files.ranks[std::size_t(rankOf(id))].rank;
    if (level == 0) {
        if (role == PathRole || (role == Qt::ToolTipRole))
            return QString::fromStdString(run.label());
        if (role != Qt::DisplayRole) return {};
        std::uint64_t size = 0, records = 0;
        bool damaged = false, live = false;
        for (const auto& r : files.ranks) {
            const QString s = rankState(r);
            damaged |= s == tr("damaged");
            live |= s == tr("live");
            for (const auto& p : r.parts)
                size += p.size;
        }
        for (const auto& r : run.reader->ranks())
            records += r.recordCount();
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(files.name);
        case StatusColumn:
            return damaged ? tr("damaged") : live ? tr("live") : tr("finalised");
        case RecordsColumn:
            return qulonglong(records);
        case SizeColumn:
            return formatBytes(size);
        }
        return {};
    }
    const auto& rankFiles = files.ranks[std::size_t(rankOf(id))];
    if (level == 1) {
        if (role != Qt::DisplayRole) return {};
        std::uint64_t size = 0;
        for (const auto& p : rankFiles.parts)
            size += p.size;
        const auto* reader = run.reader->rank(rankFiles.rank);
        switch (index.column()) {
        case NameColumn:
            return tr("rank %1").arg(rankFiles.rank);
        case StatusColumn:
            return rankState(rankFiles);
        case RecordsColumn:
            return qulonglong(reader ? reader->recordCount() : 0);
        case SizeColumn:
            return formatBytes(size);
        }
        return {};
    }
    const auto& part = rankFiles.parts[std::size_t(partOf(id))];
    if (role == PathRole || role == Qt::ToolTipRole) return QString::fromStdString(part.path);
    if (role == Qt::ForegroundRole && index.column() == StatusColumn &&
        part.metaState == xdl::MetaState::Corrupt)
        return QColor(Qt::red);
    if (role != Qt::DisplayRole) return {};
    std::size_t records = 0;
    if (const auto* reader = run.reader->rank(rankFiles.rank))
        for (const auto& p : reader->parts())
            if (p->part().path == part.path) records = p->index().records().size();
    switch (index.column()) {
    case NameColumn:
        return tr("part %1").arg(part.index);
    case StatusColumn:
        return partState(part);
    case RecordsColumn:
        return qulonglong(records);
    case SizeColumn:
        return formatBytes(part.size);
    }
    return {};
}

QVariant RunBrowserModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn:
        return tr("Run");
    case StatusColumn:
        return tr("Status");
    case RecordsColumn:
        return tr("Records");
    case SizeColumn:
        return tr("Size");
    }
    return {};
}

} // namespace xt::widgets
