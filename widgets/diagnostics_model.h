#pragma once
// Diagnostics of the loaded runs as a table: severity, reason code, file, byte offset, record
// and message. Counts of diagnostics that were not stored are shown as a last summary row.

#include "core/base/diagnostic_codes.h"

#include <QAbstractTableModel>

namespace xt::widgets {

class DiagnosticsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns {
        SeverityColumn,
        CodeColumn,
        FileColumn,
        OffsetColumn,
        RecordColumn,
        MessageColumn,
        ColumnCount
    };
    enum Roles { SeverityRole = Qt::UserRole }; // int: xt::Severity

    explicit DiagnosticsModel(QObject* parent = nullptr);
    void setDiagnostics(const Diagnostics& diag);
    // Adds one message (e.g. a failed job), keeping the existing rows.
    void addMessage(const DiagnosticCode& code, const QString& message);
    // Appends the stored items of `diag` (setDiagnostics replaces them; background work after a
    // load adds to them).
    void appendDiagnostics(const Diagnostics& diag);
    std::uint64_t errorCount() const { return m_errors; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<Diagnostic> m_items;
    std::uint64_t m_errors = 0;
};

} // namespace xt::widgets
