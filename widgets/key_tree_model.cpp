#include "widgets/key_tree_model.h"

#include <QColor>
#include <QStringList>

namespace xt::widgets {

struct KeyTreeModel::Node {
    QString name;
    QString key; // full key when this node is a key
    const xdl::KeySummary* summary = nullptr;
    const analysis::NonFiniteByKey* nonFinite = nullptr;
    Node* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;

    Node* child(const QString& n) {
        for (auto& c : children)
            if (c->name == n) return c.get();
        auto c = std::make_unique<Node>();
        c->name = n;
        c->parent = this;
        c->row = int(children.size());
        children.push_back(std::move(c));
        return children.back().get();
    }
    bool hasNonFinite() const {
        if (nonFinite) return true;
        for (const auto& c : children)
            if (c->hasNonFinite()) return true;
        return false;
    }
};

KeyTreeModel::KeyTreeModel(QObject* parent)
    : QAbstractItemModel(parent), m_root(std::make_unique<Node>()) {}
KeyTreeModel::~KeyTreeModel() = default;

void KeyTreeModel::setRun(RunSnapshot run) {
    beginResetModel();
    m_run = std::move(run);
    m_root = std::make_unique<Node>();
    if (m_run) {
        for (const auto& k : m_run->keys) {
            const QString key = QString::fromStdString(k.key);
            Node* n = m_root.get();
            for (const QString& part : key.split(QLatin1Char('/'), Qt::SkipEmptyParts))
                n = n->child(part);
            if (n == m_root.get()) n = n->child(key);
            n->key = key;
            n->summary = &k;
            auto it = m_run->nonFinite.find(k.key);
            if (it != m_run->nonFinite.end()) n->nonFinite = &it->second;
        }
    }
    endResetModel();
}

KeyTreeModel::Node* KeyTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

QModelIndex KeyTreeModel::indexOfKey(const QString& key) const {
    Node* n = m_root.get();
    const QStringList parts = key.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (const QString& part : parts.isEmpty() ? QStringList{key} : parts) {
        Node* next = nullptr;
        for (const auto& c : n->children)
            if (c->name == part) next = c.get();
        if (!next) return {};
        n = next;
    }
    return n->key == key ? createIndex(n->row, 0, n) : QModelIndex();
}

QModelIndex KeyTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent)) return {};
    return createIndex(row, column, nodeOf(parent)->children[std::size_t(row)].get());
}

QModelIndex KeyTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    Node* p = nodeOf(child)->parent;
    if (!p || p == m_root.get()) return {};
    return createIndex(p->row, 0, p);
}

int KeyTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return int(nodeOf(parent)->children.size());
}

int KeyTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant KeyTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Node* n = nodeOf(index);
    if (role == KeyRole) return n->key;
    if (role == NonFiniteRole) return n->hasNonFinite();
    const xdl::KeySummary* s = n->summary;
    if (role == Qt::ForegroundRole && index.column() == IssuesColumn)
        return QColor(0xd0, 0x30, 0x30);
    if (role == Qt::ToolTipRole) {
        if (!s) return n->name;
        QString tip = n->key;
        if (n->nonFinite) {
            if (n->nonFinite->nan)
                tip += tr("\nfirst NaN: gstep %1 on rank %2")
                           .arg(n->nonFinite->nan->gstep)
                           .arg(n->nonFinite->nanRank);
            if (n->nonFinite->inf)
                tip += tr("\nfirst Inf: gstep %1 on rank %2")
                           .arg(n->nonFinite->inf->gstep)
                           .arg(n->nonFinite->infRank);
        }
        if (s->emptyRecords) tip += tr("\n%1 empty records (trace_once)").arg(s->emptyRecords);
        if (s->damagedRecords) tip += tr("\n%1 damaged records").arg(s->damagedRecords);
        if (!m_run->keysCounted) tip += tr("\nrecords: counted once the run is read");
        return tip;
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case NameColumn:
        return n->name;
    case DtypeColumn:
        if (!s || !s->dtype) return {};
        return QString::fromUtf8(xdl::dtypeName(*s->dtype).data()) +
               (s->mixedDtypes ? QStringLiteral("*") : QString());
    case ShapeColumn:
        if (!s || !s->dtype) return {};
        return QString::fromStdString(s->shape.toString()) +
               (s->varyingShape ? QStringLiteral("*") : QString());
    case RecordsColumn:
        if (!s) return {};
        return m_run->keysCounted ? QVariant(qulonglong(s->records))
                                  : QVariant(QStringLiteral("\u2026"));
    case IssuesColumn: {
        if (n->nonFinite) {
            QStringList b;
            if (n->nonFinite->nan) b << tr("NaN @%1").arg(n->nonFinite->nan->gstep);
            if (n->nonFinite->inf) b << tr("Inf @%1").arg(n->nonFinite->inf->gstep);
            return b.join(QLatin1Char(' '));
        }
        if (!s && n->hasNonFinite()) return tr("NaN/Inf inside");
        return {};
    }
    }
    return {};
}

QVariant KeyTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn:
        return tr("Key");
    case DtypeColumn:
        return tr("Dtype");
    case ShapeColumn:
        return tr("Shape");
    case RecordsColumn:
        return tr("Records");
    case IssuesColumn:
        return tr("Issues");
    }
    return {};
}

} // namespace xt::widgets
