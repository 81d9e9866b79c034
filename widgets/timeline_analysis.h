#pragma once
// The analysis panels of a timeline tab, linked to its view: the op summary of layer 0 (whole
// trace, or the range selected in the view; double click highlights every occurrence), the
// step breakdown (a click on a bar shows that step), memory peaks (a double click centres the
// view on the peak) and the trace diff: any layer or step against any other (two traces, or
// two steps of one), as an op summary diff sorted by regression. A layer added after the first
// is aligned at its first step marker with layer 0's, so two profiles share a relative axis.

#include "widgets/timeline_page.h"

#include <QObject>
#include <QString>
#include <vector>

class QComboBox;

namespace xt::widgets {

class MemoryPanel;
class OpSummaryDiffPanel;
class OpSummaryPanel;
class StepBreakdownChart;

class TimelineAnalysis : public QObject {
    Q_OBJECT
public:
    // Attaches to `page` (its child): panels appear as layers load.
    explicit TimelineAnalysis(TimelinePage* page);

    OpSummaryPanel* opSummary() const { return m_opSummary; }
    StepBreakdownChart* steps() const { return m_steps; }
    MemoryPanel* memory() const { return m_memory; }
    OpSummaryDiffPanel* diff() const { return m_diff; }
    // The two sides of the diff: "<layer title>" or "<layer title>: <step marker>".
    QComboBox* diffBaseline() const { return m_diffA; }
    QComboBox* diffCandidate() const { return m_diffB; }

private:
    struct Side {
        int layer = 0;
        QString step; // empty: the whole layer
    };
    void layerAdded();
    void rebuildDiffChoices();
    void applyDiff();

    TimelinePage* m_page;
    OpSummaryPanel* m_opSummary = nullptr;
    StepBreakdownChart* m_steps = nullptr;
    MemoryPanel* m_memory = nullptr;
    OpSummaryDiffPanel* m_diff = nullptr;
    QComboBox* m_diffA = nullptr;
    QComboBox* m_diffB = nullptr;
    std::vector<Side> m_sides;
};

} // namespace xt::widgets
