#pragma once
// Ranks x steps of one key: a row per rank, a column per global step (kMaxColumns columns of
// several steps over longer spans, each the mean of its records), coloured by a statistic of
// the key or by its robust z-score against the median of the ranks at that step
// (analysis::rankSpread), where one stalled or diverging rank stands out as a stripe. A
// record's colour reaches to the rank's next record, as in the histogram heatmap. A click opens
// that rank and step (cellActivated); notes of the run are drawn over the steps.

#include "core/analysis/rank_spread.h"
#include "widgets/notes.h"
#include "widgets/run_loader.h"

#include <QWidget>
#include <qcustomplot.h>

class QComboBox;
class QLabel;

namespace xt::widgets {

class RankStepHeatmap : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxColumns = 4000;

    explicit RankStepHeatmap(QWidget* parent = nullptr);

    void setData(RunSnapshot run, const QString& key);
    void setStepCursor(std::int64_t gstep);
    void setNotes(std::vector<Note> notes);
    // The statistic shown, and whether as the robust z-score.
    void setField(analysis::StatField field);
    analysis::StatField field() const { return m_field; }
    void setDeviation(bool on);
    bool deviation() const { return m_deviation; }
    QCustomPlot* plot() const { return m_plot; }
    // The colour value of the cell of (rank, gstep) (NaN when empty).
    double cellValue(int rank, std::int64_t gstep);
    // Plot pixel of the centre of that cell.
    QPointF cellPosition(int rank, std::int64_t gstep);

signals:
    void cellActivated(int rank, std::int64_t gstep);

protected:
    void changeEvent(QEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    // The grid is rebuilt when shown (or asked for), not while hidden behind another tab.
    void invalidate();
    void ensureBuilt();
    void rebuild();
    void drawNotes();
    void applyPalette();
    std::optional<std::pair<int, std::int64_t>> cellAt(QPointF pos) const;

    QComboBox* m_fieldBox;
    QComboBox* m_modeBox;
    QLabel* m_info;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QCPItemStraightLine* m_cursor;
    RunSnapshot m_run;
    QString m_key;
    analysis::StatField m_field = analysis::StatField::Mean;
    bool m_deviation = false;
    std::vector<const analysis::KeySeries*> m_series;
    std::vector<Note> m_notes;
    std::vector<QCPAbstractItem*> m_noteItems;
    std::optional<std::int64_t> m_cursorStep;
    QPoint m_pressPos;
    bool m_stale = false;
    // The grid: columns of m_columnWidth steps from m_s0, rows from m_minRank.
    std::int64_t m_s0 = 0;
    double m_columnWidth = 1;
    int m_columns = 0, m_minRank = 0, m_rows = 0;
};

} // namespace xt::widgets
