#include "widgets/table_columns.h"

#include <QEvent>
#include <QHeaderView>
#include <QHelpEvent>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QToolTip>
#include <algorithm>
#include <numeric>

namespace xt::widgets {

namespace {

constexpr int kStretchFloorChars = 16, kFloorChars = 24;

// Shows the display text as the tooltip of a cell it does not fit in.
class ElidedTextDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    bool helpEvent(QHelpEvent* e, QAbstractItemView* view, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override {
        if (e->type() == QEvent::ToolTip && index.isValid() &&
            !index.data(Qt::ToolTipRole).isValid()) {
            const QString text = index.data(Qt::DisplayRole).toString();
            if (!text.isEmpty() && sizeHint(option, index).width() > option.rect.width()) {
                QToolTip::showText(e->globalPos(), text, view, option.rect);
                return true;
            }
        }
        return QStyledItemDelegate::helpEvent(e, view, option, index);
    }
};

class ColumnFitter : public QObject {
public:
    ColumnFitter(QTableView* view, int stretchColumn)
        : QObject(view), m_view(view), m_stretch(stretchColumn) {
        m_timer.setSingleShot(true);
        m_timer.setInterval(0);
        connect(&m_timer, &QTimer::timeout, this, &ColumnFitter::fit);
        view->setItemDelegate(new ElidedTextDelegate(view));
        view->setWordWrap(false);
        view->horizontalHeader()->setStretchLastSection(false);
        view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
        view->viewport()->installEventFilter(this);
        if (QAbstractItemModel* m = view->model()) {
            const auto later = [this] { m_timer.start(); };
            connect(m, &QAbstractItemModel::modelReset, this, later);
            connect(m, &QAbstractItemModel::layoutChanged, this, later);
            connect(m, &QAbstractItemModel::rowsInserted, this, later);
            connect(m, &QAbstractItemModel::rowsRemoved, this, later);
            connect(m, &QAbstractItemModel::dataChanged, this, later);
        }
        m_timer.start();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (e->type() == QEvent::Resize) m_timer.start();
        return QObject::eventFilter(watched, e);
    }

private:
    void fit() {
        const QAbstractItemModel* m = m_view->model();
        if (!m) return;
        QHeaderView* header = m_view->horizontalHeader();
        const int charWidth = m_view->fontMetrics().averageCharWidth();
        QList<int> columns, content, floor;
        for (int c = 0; c < m->columnCount(); ++c) {
            if (m_view->isColumnHidden(c)) continue;
            const int head = header->sectionSizeHint(c);
            const int minimum = charWidth * (c == m_stretch ? kStretchFloorChars : kFloorChars);
            columns << c;
            content << std::max(head,
                                static_cast<QAbstractItemView*>(m_view)->sizeHintForColumn(c));
            floor << std::min(content.back(), std::max(head, minimum));
        }
        const int available = m_view->viewport()->width();
        QList<int> widths = fittedColumnWidths(content, floor, available);
        const int spare = available - std::accumulate(widths.begin(), widths.end(), 0);
        const int stretch = columns.indexOf(m_stretch);
        if (spare > 0 && stretch >= 0) widths[stretch] += spare;
        for (int i = 0; i < columns.size(); ++i)
            header->resizeSection(columns[i], widths[i]);
    }

    QTableView* m_view;
    int m_stretch;
    QTimer m_timer;
};

} // namespace

QList<int> fittedColumnWidths(const QList<int>& content, const QList<int>& floor, int available) {
    const auto widthsAt = [&](int cap) {
        QList<int> w;
        for (int i = 0; i < content.size(); ++i)
            w << std::max(floor[i], std::min(content[i], cap));
        return w;
    };
    const auto total = [](const QList<int>& w) { return std::accumulate(w.begin(), w.end(), 0); };
    if (total(content) <= available) return content;
    // The largest common cap whose widths fit (the floors alone may not: then they overflow).
    int lo = 0, hi = content.isEmpty() ? 0 : *std::max_element(content.begin(), content.end());
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (total(widthsAt(mid)) <= available)
            lo = mid;
        else
            hi = mid - 1;
    }
    return widthsAt(lo);
}

void fitColumnsToContents(QTableView* view, int stretchColumn) {
    new ColumnFitter(view, stretchColumn);
}

} // namespace xt::widgets
