#pragma once
// The elements of one tensor (one key, one record) as a table: a 2-D tensor as rows x columns,
// anything else flattened to one column with the multi-index as row header. Values are read
// lazily from the mapped file; the snapshot keeps the mapping alive.

#include "widgets/run_loader.h"

#include <QAbstractTableModel>

namespace xt::widgets {

class ValueTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { ValueColumn }; // flattened layout; a 2-D tensor has one column per index
    enum Roles { ValueRole = Qt::UserRole }; // double

    explicit ValueTableModel(QObject* parent = nullptr);
    // Empty view clears the table.
    void setTensor(RunSnapshot run, xdl::TensorView tensor);
    const xdl::TensorView& tensor() const { return m_tensor; }
    bool isMatrix() const { return m_cols > 0; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::size_t flatIndex(const QModelIndex& index) const;

    RunSnapshot m_run;
    xdl::TensorView m_tensor;
    int m_rows = 0, m_cols = 0; // m_cols > 0: a matrix
};

} // namespace xt::widgets
