#include "widgets/diagnostics_model.h"

#include <QApplication>
#include <QColor>
#include <QStyle>

namespace xt::widgets {

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(const Diagnostics& diag) {
    beginResetModel();
    m_items = diag.items();
    m_errors = diag.errorCount();
    std::uint64_t stored = m_items.size();
    if (diag.total() > stored) {
        Diagnostic d;
        d.severity = codes::kNotShown.severity;
        d.code = codes::kNotShown.name;
        d.message = std::to_string(diag.total() - stored) +
                    " more diagnostics of the same kinds were counted but not stored";
        m_items.push_back(std::move(d));
    }
    endResetModel();
}

void DiagnosticsModel::addMessage(const DiagnosticCode& code, const QString& message) {
    beginInsertRows({}, int(m_items.size()), int(m_items.size()));
    Diagnostic d;
    d.severity = code.severity;
    d.code = code.name;
    d.message = message.toStdString();
    m_items.push_back(std::move(d));
    if (code.severity == Severity::Error) ++m_errors;
    endInsertRows();
}

void DiagnosticsModel::appendDiagnostics(const Diagnostics& diag) {
    if (diag.items().empty()) return;
    beginInsertRows({}, int(m_items.size()), int(m_items.size() + diag.items().size() - 1));
    m_items.insert(m_items.end(), diag.items().begin(), diag.items().end());
    m_errors += diag.errorCount();
    endInsertRows();
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_items.size());
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_items.size())) return {};
    const Diagnostic& d = m_items[std::size_t(index.row())];
    if (role == SeverityRole) return int(d.severity);
    if (role == Qt::DecorationRole && index.column() == SeverityColumn) {
        const auto icon = d.severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                          : d.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                            : QStyle::SP_MessageBoxInformation;
        return QApplication::style()->standardIcon(icon);
    }
    if (role == Qt::ToolTipRole) return QString::fromStdString(d.toString());
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case SeverityColumn:
        return QString::fromUtf8(severityName(d.severity));
    case CodeColumn:
        return QString::fromStdString(d.code);
    case FileColumn:
        return QString::fromStdString(d.file);
    case OffsetColumn:
        return d.offset == Diagnostic::kNoOffset ? QVariant() : QVariant(qulonglong(d.offset));
    case RecordColumn:
        return d.record < 0 ? QVariant() : QVariant(qlonglong(d.record));
    case MessageColumn:
        return QString::fromStdString(d.message);
    }
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case CodeColumn:
        return tr("Reason");
    case FileColumn:
        return tr("File");
    case OffsetColumn:
        return tr("Offset");
    case RecordColumn:
        return tr("Record");
    case MessageColumn:
        return tr("Message");
    }
    return {};
}

} // namespace xt::widgets
