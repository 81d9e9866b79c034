#include "widgets/key_divergence_model.h"

#include "widgets/text_format.h"

#include <QColor>
#include <QFont>
#include <algorithm>
#include <limits>

namespace xt::widgets {

namespace {

using Side = DivergenceRow::Side;

std::optional<std::int64_t> earliest(std::initializer_list<std::optional<std::int64_t>> steps) {
    std::optional<std::int64_t> out;
    for (const auto& s : steps)
        if (s && (!out || *s < *out)) out = s;
    return out;
}

// 0: differs, 1: on one side only, 2: no difference.
int divergenceClass(const DivergenceRow& r) {
    if (r.side != Side::Both) return 1;
    return r.jumpStep() || r.shapeMismatch ? 0 : 2;
}

QString stepText(const std::optional<std::int64_t>& s) {
    return s ? QString::number(*s) : QStringLiteral("-");
}

QVariant stepSort(const std::optional<std::int64_t>& s) {
    return s ? qint64(*s) : std::numeric_limits<qint64>::max();
}

QString statusText(const DivergenceRow& r) {
    switch (r.side) {
    case Side::OnlyA:
        return QObject::tr("only in A");
    case Side::OnlyB:
        return QObject::tr("only in B");
    case Side::Both:
        break;
    }
    if (r.shapeMismatch) return QObject::tr("dtype/shape differ");
    if (r.firstDiffTolerance) return QObject::tr("beyond tolerance");
    if (r.firstDiffExact) return QObject::tr("within tolerance");
    if (r.stepsCompared == 0) return QObject::tr("no common step");
    return QObject::tr("identical");
}

QString nonFiniteText(const DivergenceRow& r) {
    QStringList parts;
    auto add = [&](const std::optional<std::int64_t>& s, const QString& what) {
        if (s) parts << QObject::tr("%1 @%2").arg(what).arg(*s);
    };
    add(r.firstNanOnlyA, QObject::tr("NaN only in A"));
    add(r.firstNanOnlyB, QObject::tr("NaN only in B"));
    add(r.firstInfOnlyA, QObject::tr("Inf only in A"));
    add(r.firstInfOnlyB, QObject::tr("Inf only in B"));
    return parts.join(QStringLiteral(", "));
}

} // namespace

std::optional<std::int64_t> DivergenceRow::jumpStep() const {
    return earliest({firstDiffExact, firstDiffTolerance, firstNonFiniteOneSide()});
}

std::optional<std::int64_t> DivergenceRow::firstNonFiniteOneSide() const {
    return earliest({firstNanOnlyA, firstNanOnlyB, firstInfOnlyA, firstInfOnlyB});
}

std::vector<DivergenceRow> divergenceRows(const analysis::RunDiff& diff) {
    std::vector<DivergenceRow> rows;
    rows.reserve(diff.keys.size() + diff.keysOnlyA.size() + diff.keysOnlyB.size());
    for (const auto& k : diff.keys) {
        DivergenceRow r;
        r.key = QString::fromStdString(k.key);
        r.stepsCompared = k.steps.size();
        r.firstDiffExact = k.firstDiffExact;
        r.firstDiffTolerance = k.firstDiffTolerance;
        r.firstNanOnlyA = k.firstNanOnlyA;
        r.firstNanOnlyB = k.firstNanOnlyB;
        r.firstInfOnlyA = k.firstInfOnlyA;
        r.firstInfOnlyB = k.firstInfOnlyB;
        for (const auto& s : k.steps) {
            r.maxAbs = std::max(r.maxAbs, s.maxAbs);
            r.maxRel = std::max(r.maxRel, s.maxRel);
            r.shapeMismatch = r.shapeMismatch || s.shapeMismatch;
        }
        r.stepsOnlyA = k.stepsOnlyA.size();
        r.stepsOnlyB = k.stepsOnlyB.size();
        rows.push_back(std::move(r));
    }
    for (const auto& k : diff.keysOnlyA) {
        DivergenceRow r;
        r.key = QString::fromStdString(k);
        r.side = Side::OnlyA;
        rows.push_back(std::move(r));
    }
    for (const auto& k : diff.keysOnlyB) {
        DivergenceRow r;
        r.key = QString::fromStdString(k);
        r.side = Side::OnlyB;
        rows.push_back(std::move(r));
    }
    constexpr auto kNever = std::numeric_limits<std::int64_t>::max();
    std::stable_sort(rows.begin(), rows.end(), [&](const DivergenceRow& a, const DivergenceRow& b) {
        const int ca = divergenceClass(a), cb = divergenceClass(b);
        if (ca != cb) return ca < cb;
        if (ca == 0) {
            const auto sa = a.firstDiffExact.value_or(a.jumpStep().value_or(kNever));
            const auto sb = b.firstDiffExact.value_or(b.jumpStep().value_or(kNever));
            if (sa != sb) return sa < sb;
            if (a.maxRel != b.maxRel) return a.maxRel > b.maxRel;
        }
        return a.key < b.key;
    });
    return rows;
}

KeyDivergenceModel::KeyDivergenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void KeyDivergenceModel::setDiff(std::shared_ptr<const analysis::RunDiff> diff) {
    beginResetModel();
    m_diff = std::move(diff);
    m_rows = m_diff ? divergenceRows(*m_diff) : std::vector<DivergenceRow>{};
    endResetModel();
}

int KeyDivergenceModel::rowOfKey(const QString& key) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].key == key) return int(i);
    return -1;
}

const analysis::KeyDiff* KeyDivergenceModel::keyDiff(const QString& key) const {
    if (!m_diff) return nullptr;
    const std::string k = key.toStdString();
    for (const auto& d : m_diff->keys)
        if (d.key == k) return &d;
    return nullptr;
}

int KeyDivergenceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int KeyDivergenceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KeyDivergenceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size())) return {};
    const DivergenceRow& r = m_rows[std::size_t(index.row())];
    const bool both = r.side == Side::Both;
    if (role == KeyRole) return r.key;
    if (role == JumpStepRole) return r.jumpStep() ? QVariant(qint64(*r.jumpStep())) : QVariant();
    if (role == SortRole) {
        switch (index.column()) {
        case KeyColumn:
            return r.key;
        case StatusColumn:
            return divergenceClass(r);
        case FirstDiffColumn:
            return stepSort(r.firstDiffExact);
        case FirstBeyondToleranceColumn:
            return stepSort(r.firstDiffTolerance);
        case MaxAbsColumn:
            return r.maxAbs;
        case MaxRelColumn:
            return r.maxRel;
        case NonFiniteColumn:
            return stepSort(r.firstNonFiniteOneSide());
        case StepsOnlyAColumn:
            return qulonglong(r.stepsOnlyA);
        case StepsOnlyBColumn:
            return qulonglong(r.stepsOnlyB);
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case KeyColumn:
            return r.key;
        case StatusColumn:
            return statusText(r);
        case FirstDiffColumn:
            return both ? stepText(r.firstDiffExact) : QString();
        case FirstBeyondToleranceColumn:
            return both ? stepText(r.firstDiffTolerance) : QString();
        case MaxAbsColumn:
            return both ? formatValue(r.maxAbs) : QString();
        case MaxRelColumn:
            return both ? formatValue(r.maxRel) : QString();
        case NonFiniteColumn:
            return nonFiniteText(r);
        case StepsOnlyAColumn:
            return both ? QVariant(qulonglong(r.stepsOnlyA)) : QVariant();
        case StepsOnlyBColumn:
            return both ? QVariant(qulonglong(r.stepsOnlyB)) : QVariant();
        }
        return {};
    }
    if (role == Qt::ToolTipRole && index.column() == KeyColumn)
        return tr("%1\n%2 aligned steps compared").arg(r.key).arg(r.stepsCompared);
    if (role == Qt::FontRole && !both) {
        QFont f;
        f.setItalic(true);
        return f;
    }
    if (role == Qt::ForegroundRole &&
        (index.column() == StatusColumn || index.column() == NonFiniteColumn)) {
        if (!both) return QColor(0x80, 0x50, 0xc0);
        if (r.firstDiffTolerance || r.shapeMismatch || r.firstNonFiniteOneSide())
            return QColor(0xd0, 0x20, 0x20);
        if (r.firstDiffExact) return QColor(0xc0, 0x80, 0x00);
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() != KeyColumn &&
        index.column() != StatusColumn && index.column() != NonFiniteColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant KeyDivergenceModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case KeyColumn:
            return tr("Key");
        case StatusColumn:
            return tr("Status");
        case FirstDiffColumn:
            return tr("First diff");
        case FirstBeyondToleranceColumn:
            return tr("Beyond tol.");
        case MaxAbsColumn:
            return tr("Max abs");
        case MaxRelColumn:
            return tr("Max rel");
        case NonFiniteColumn:
            return tr("NaN/Inf one side");
        case StepsOnlyAColumn:
            return tr("Steps only A");
        case StepsOnlyBColumn:
            return tr("Steps only B");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case FirstDiffColumn:
            return tr("First aligned step whose bytes differ (bit-exact comparison)");
        case FirstBeyondToleranceColumn:
            return tr("First aligned step with |a - b| > atol + rtol * |b| somewhere");
        case MaxAbsColumn:
            return tr("Largest |a - b| over elements finite on both sides");
        case MaxRelColumn:
            return tr("Largest |a - b| / max(|a|, |b|)");
        case NonFiniteColumn:
            return tr("First step where a NaN or an Inf is on one side only");
        }
    }
    return {};
}

} // namespace xt::widgets
