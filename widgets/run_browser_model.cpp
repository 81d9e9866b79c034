#include "widgets/run_browser_model.h"

#include "core/storage/webhdfs_client.h"
#include "core/xdl/run_names.h"
#include "widgets/text_format.h"

#include <QApplication>
#include <QFileInfo>
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

std::string ownName(const xdl::RunFiles& f) {
    return f.prefix.empty() ? f.name : f.prefix + "." + f.name;
}

} // namespace

QString runIdentity(const LoadedRun& run) {
    if (run.sourceUrl.empty()) return QString::fromStdString(run.label());
    return QString::fromStdString(run.sourceUrl + "/" + ownName(run.reader->files()));
}

QStringList runNames(const std::vector<RunSnapshot>& runs) {
    std::vector<xdl::RunLocation> locations;
    for (const auto& r : runs) {
        const auto& files = r->reader->files();
        xdl::RunLocation l{{}, files.directory, ownName(files)};
        if (auto url = storage::parseHdfsUrl(r->sourceUrl)) {
            l.host = url->port ? url->host + ":" + std::to_string(url->port) : url->host;
            l.directory = url->path;
        }
        locations.push_back(std::move(l));
    }
    QStringList out;
    for (const auto& n : xdl::distinctRunNames(locations))
        out << QString::fromStdString(n);
    return out;
}

RunBrowserModel::RunBrowserModel(QObject* parent) : QAbstractItemModel(parent) {}

void RunBrowserModel::setRuns(std::vector<RunSnapshot> runs) {
    beginResetModel();
    const QStringList names = runNames(runs);
    m_entries.clear();
    for (std::size_t i = 0; i < runs.size(); ++i)
        m_entries.push_back(
            {runs[i], names[int(i)], m_customNames.value(runIdentity(*runs[i])), {}});
    endResetModel();
    emit runNamesChanged();
}

std::vector<RunSnapshot> RunBrowserModel::runs() const {
    std::vector<RunSnapshot> out;
    for (const auto& e : m_entries)
        out.push_back(e.run);
    return out;
}

QString RunBrowserModel::nameOf(const RunSnapshot& run) const {
    if (!run) return {};
    for (const auto& e : m_entries)
        if (e.run == run) return e.name();
    const QString id = runIdentity(*run);
    for (const auto& e : m_entries)
        if (runIdentity(*e.run) == id) return e.name();
    return QFileInfo(QString::fromStdString(run->label())).fileName();
}

void RunBrowserModel::renameRun(int index, const QString& name) {
    if (index < 0 || index >= int(m_entries.size())) return;
    RunEntry& e = m_entries[std::size_t(index)];
    const QString custom = name.trimmed() == e.autoName ? QString() : name.trimmed();
    if (custom == e.customName) return;
    e.customName = custom;
    if (custom.isEmpty())
        m_customNames.remove(runIdentity(*e.run));
    else
        m_customNames.insert(runIdentity(*e.run), custom);
    emit dataChanged(this->index(index, NameColumn), this->index(index, NameColumn));
    emit runNamesChanged();
}

void RunBrowserModel::setCustomNames(const QHash<QString, QString>& names) {
    m_customNames = names;
    for (std::size_t i = 0; i < m_entries.size(); ++i)
        m_entries[i].customName = m_customNames.value(runIdentity(*m_entries[i].run));
    if (!m_entries.empty())
        emit dataChanged(index(0, NameColumn), index(int(m_entries.size()) - 1, NameColumn));
    emit runNamesChanged();
}

bool RunBrowserModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable)) return false;
    renameRun(index.row(), value.toString());
    return true;
}

Qt::ItemFlags RunBrowserModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractItemModel::flags(index);
    if (index.isValid() && levelOf(index.internalId()) == 0 && index.column() == NameColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

namespace {
bool sameParts(const xdl::RunFiles& a, const xdl::RunFiles& b) {
    if (a.ranks.size() != b.ranks.size()) return false;
    for (std::size_t r = 0; r < a.ranks.size(); ++r)
        if (a.ranks[r].parts.size() != b.ranks[r].parts.size()) return false;
    return true;
}
} // namespace

void RunBrowserModel::replaceRun(const RunSnapshot& before, const RunSnapshot& after) {
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].run != before) continue;
        if (!sameParts(before->reader->files(), after->reader->files())) {
            beginResetModel();
            m_entries[i].run = after;
            endResetModel();
            continue;
        }
        m_entries[i].run = after;
        const QModelIndex run = index(int(i), 0);
        emit dataChanged(run, index(int(i), ColumnCount - 1));
        for (int r = 0; r < rowCount(run); ++r) {
            const QModelIndex rank = index(r, 0, run);
            emit dataChanged(rank, index(r, ColumnCount - 1, run));
            if (const int parts = rowCount(rank))
                emit dataChanged(index(0, 0, rank), index(parts - 1, ColumnCount - 1, rank));
        }
    }
}

void RunBrowserModel::setLiveStatus(const RunSnapshot& run, const QString& status) {
    for (std::size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].run == run && m_entries[i].liveStatus != status) {
            m_entries[i].liveStatus = status;
            emit dataChanged(index(int(i), StatusColumn), index(int(i), StatusColumn));
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
    if (!parent.isValid()) return int(m_entries.size());
    if (parent.column() != 0) return 0;
    const quintptr id = parent.internalId();
    const auto& files = m_entries[std::size_t(runOf(id))].run->reader->files();
    if (levelOf(id) == 0) return int(files.ranks.size());
    if (levelOf(id) == 1) return int(files.ranks[std::size_t(rankOf(id))].parts.size());
    return 0;
}

int RunBrowserModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

namespace {

// A count of records; of a run shown from a preview, those indexed so far ("...", as the Keys
// dock marks counts still to come).
QVariant recordsText(const LoadedRun& run, std::uint64_t records) {
    if (run.preview) return QObject::tr("%1...").arg(records);
    return qulonglong(records);
}

} // namespace

QVariant RunBrowserModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const quintptr id = index.internalId();
    const RunEntry& entry = m_entries[std::size_t(runOf(id))];
    const LoadedRun& run = *entry.run;
    const auto& files = run.reader->files();
    const int level = levelOf(id);
    if (role == RunIndexRole) return runOf(id);
    if (role == RankRole) return level == 0 ? -1 : files.ranks[std::size_t(rankOf(id))].rank;
    if (level == 0) {
        if (role == PathRole) return QString::fromStdString(run.label());
        if (role == Qt::ToolTipRole) {
            QString tip =
                QString::fromStdString(run.sourceUrl.empty() ? run.label() : run.sourceUrl);
            if (!run.sourceUrl.empty())
                tip += tr("\nmirrored in %1").arg(QString::fromStdString(run.label()));
            if (!entry.customName.isEmpty())
                tip += tr("\nrenamed from %1 (F2 renames)").arg(entry.autoName);
            return tip;
        }
        if (role == Qt::EditRole && index.column() == NameColumn) return entry.name();
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
            return entry.name();
        case StatusColumn:
            if (!entry.liveStatus.isEmpty()) return entry.liveStatus;
            if (run.preview) return tr("indexing");
            return damaged ? tr("damaged") : live ? tr("live") : tr("finalised");
        case RecordsColumn:
            return recordsText(run, records);
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
            return recordsText(run, reader ? reader->recordCount() : 0);
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
        return recordsText(run, records);
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
