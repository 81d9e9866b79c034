#include "widgets/value_table_model.h"

#include "widgets/text_format.h"

#include <QColor>
#include <cmath>
#include <limits>

namespace xt::widgets {

ValueTableModel::ValueTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ValueTableModel::setTensor(RunSnapshot run, xdl::TensorView tensor) {
    beginResetModel();
    m_run = std::move(run);
    m_tensor = tensor;
    const auto& s = tensor.shape();
    const std::size_t n = tensor.size();
    constexpr std::size_t kMaxRows = std::size_t(std::numeric_limits<int>::max());
    if (s.rank == 2 && s.dims[0] > 0 && s.dims[1] > 0 && std::size_t(s.dims[0] * s.dims[1]) == n) {
        m_rows = int(s.dims[0]);
        m_cols = int(s.dims[1]);
    } else {
        m_rows = int(std::min(n, kMaxRows));
        m_cols = 0;
    }
    endResetModel();
}

std::size_t ValueTableModel::flatIndex(const QModelIndex& index) const {
    return m_cols > 0 ? std::size_t(index.row()) * std::size_t(m_cols) + std::size_t(index.column())
                      : std::size_t(index.row());
}

int ValueTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_rows;
}

int ValueTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : (m_cols > 0 ? m_cols : 1);
}

QVariant ValueTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows) return {};
    const std::size_t i = flatIndex(index);
    if (i >= m_tensor.size()) return {};
    const double v = m_tensor.valueAsDouble(i);
    switch (role) {
    case ValueRole:
        return v;
    case Qt::DisplayRole:
        return formatValue(v);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (!std::isfinite(v)) return QColor(0xd0, 0x30, 0x30);
        return {};
    }
    return {};
}

QVariant ValueTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Horizontal) return m_cols > 0 ? QVariant(section) : QVariant(tr("Value"));
    if (m_cols > 0) return section;
    // Multi-index of a flattened element, row-major.
    const auto& s = m_tensor.shape();
    if (s.rank <= 1) return section;
    QStringList parts;
    std::int64_t rest = section;
    for (int d = s.rank - 1; d >= 0; --d) {
        const std::int64_t dim = std::max<std::int64_t>(s.dims[std::size_t(d)], 1);
        parts.prepend(QString::number(rest % dim));
        rest /= dim;
    }
    return parts.join(QLatin1Char(','));
}

} // namespace xt::widgets
