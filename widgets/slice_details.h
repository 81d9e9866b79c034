#pragma once
// Details of the slice selected in a TimelineView: name, category, track, start (relative to the
// trace's begin and absolute), duration, self time (duration minus its direct children on the
// same track, clipped to it), parent and children counts, args decoded on demand into a table,
// and the flows in and out (activating one emits jumpToSlice).

#include "widgets/timeline_document.h"

#include <QWidget>

class QLabel;
class QTableWidget;
class QTreeWidget;

namespace xt::widgets {

class SliceDetails : public QWidget {
    Q_OBJECT
public:
    explicit SliceDetails(QWidget* parent = nullptr);

    void setSlice(const TimelineLayer& layer, int layerIndex, quint32 slice);
    void clear();

    // The values shown, for tests: "name", "category", "track", "start", "absolute",
    // "duration", "self", "parent", "children".
    QString field(const QString& key) const;
    QTableWidget* argsTable() const { return m_args; }
    QTreeWidget* flowsTree() const { return m_flows; }

    // Self time of a slice: its duration minus the parts of its direct children inside it.
    static std::int64_t selfTime(const timeline::TraceStore& store, quint32 slice,
                                 std::uint32_t* children = nullptr);

signals:
    void jumpToSlice(int layer, quint32 slice);

private:
    QLabel* m_title;
    QTableWidget* m_fields;
    QTableWidget* m_args;
    QTreeWidget* m_flows;
    int m_layer = -1;
};

} // namespace xt::widgets
