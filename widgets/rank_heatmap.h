#pragma once
// Ranks x steps of one key: a row per rank, a column per global step (kMaxColumns columns of
// several steps over longer spans, each the mean of its records), coloured by a statistic of
// the key or by its robust z-score against the median of the ranks at that step
// (analysis::rankSpread), where one stalled or diverging rank stands out as a stripe. A
// record's colour reaches to the rank's next record, as in the histogram heatmap. A click opens
// that rank and step (cellActivated); notes of the run are drawn over the steps. The grid is a
// pass over every record of every rank: from StatPlot::kBackgroundBuildRecords records on it is
// computed in the background (isBuilding()).

#include "core/analysis/rank_spread.h"
#include "widgets/job_tracker.h"
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
    bool isBuilding() const { return m_jobs->isRunning(); }
    // The colour value of the cell of (rank, gstep) (NaN when empty, or while building).
    double cellValue(int rank, std::int64_t gstep);
    // Plot pixel of the centre of that cell.
    QPointF cellPosition(int rank, std::int64_t gstep);

signals:
    void cellActivated(int rank, std::int64_t gstep);

protected:
    void changeEvent(QEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    // The grid: columns of columnWidth steps from s0, rows from rank r0; cells column first.
    struct Grid {
        std::int64_t s0 = 0, s1 = 0;
        int r0 = 0, r1 = 0, columns = 0;
        double columnWidth = 1, lo = 0, hi = 0, extreme = 0;
        bool anyValue = false;
        std::vector<double> cells;
    };
    static Grid computeGrid(const std::vector<const analysis::KeySeries*>& series,
                            analysis::StatField field, bool deviation);
    // The grid is rebuilt when shown (or asked for), not while hidden behind another tab.
    void invalidate();
    void ensureBuilt();
    void rebuild();
    void applyGrid(const Grid& g);
    void drawNotes();
    void applyPalette();
    std::optional<std::pair<int, std::int64_t>> cellAt(QPointF pos) const;

    JobTracker* m_jobs;
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
