#pragma once
// The Ranks panel of a multi-rank timeline tab (one layer per rank of a distributed job):
//  * alignment of the ranks' clocks (as recorded, at a ProfilerStep, or at the N-th run of a
//    collective on every rank) and the per-rank offsets, shown and editable;
//  * the per-rank figures (core/export/ranks_report.h tables) with stacked bars of the GPU time
//    (idle / compute / non-compute) and of kernel time by type;
//  * a rank x step heatmap of step time, collective wait or idle time, with the stragglers table;
//  * idle time by stream, steps per rank and the top kernels per type.
// A click on a heatmap cell (or a double click on a step row) shows that rank's step in the
// timeline. Every table exports to CSV. The analyses run in the background.

#include "core/export/ranks_report.h"
#include "core/timeline/rank_session.h"
#include "widgets/job_tracker.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QScrollArea;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace xt::widgets {

class RankBarsChart;
class RankHeatmap;
class ReportTableView;
class TimelineView;

class RanksPanel : public QWidget {
    Q_OBJECT
public:
    enum class HeatmapMode { StepTime, CollectiveWait, IdleTime };

    explicit RanksPanel(TimelineView* view, QWidget* parent = nullptr);

    // The session's ranks are the view's layers [firstLayer, firstLayer + ranks); puts them as
    // recorded and analyses them in the background (analysisReady when done).
    void setSession(std::shared_ptr<const timeline::RankSession> session, int firstLayer);
    const timeline::RankSession* session() const { return m_session.get(); }
    const timeline::SessionAnalysis* analysis() const { return m_analysis.get(); }
    bool isBusy() const { return m_jobs->isRunning(); }

    // Sets the layers' offsets from core's alignRanks; the offsets table follows.
    void applyAlignment(const timeline::AlignSpec& spec);
    const timeline::Alignment& alignment() const { return m_alignment; }
    // One rank's offset (nanoseconds), as an edit of the offsets table does.
    void setRankOffset(int rankIndex, qint64 offsetNs);

    // Expands rank `rankIndex`'s layer, selects its step marker and fits the view to the step.
    bool showStep(int rankIndex, const QString& step);

    void setHeatmapMode(HeatmapMode mode);
    RankHeatmap* heatmap() const { return m_heatmap; }
    RankBarsChart* timeBars() const { return m_timeBars; }
    RankBarsChart* kernelBars() const { return m_kernelBars; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableWidget* offsetsTable() const { return m_offsets; }
    QComboBox* alignMode() const { return m_alignMode; }
    QComboBox* alignAnchor() const { return m_anchor; }
    // The table views by report table name ("ranks", "idle_by_stream", "steps", "stragglers",
    // "top_kernels").
    ReportTableView* table(const QString& name) const;
    // The offsets table (rank, file, offset_us, anchored) as CSV.
    Status exportOffsetsCsv(const QString& path) const;

signals:
    void analysisReady();

private:
    void display();
    void fillAnchors();
    void fillOffsets();
    void updateHeatmap();
    ReportTable offsetsReport() const;

    TimelineView* m_view;
    std::shared_ptr<const timeline::RankSession> m_session;
    std::shared_ptr<const timeline::SessionAnalysis> m_analysis;
    timeline::Alignment m_alignment;
    int m_first = 0;
    HeatmapMode m_mode = HeatmapMode::StepTime;
    bool m_filling = false;

    JobTracker* m_jobs;
    QLabel* m_status;
    QComboBox* m_alignMode;
    QComboBox* m_anchor;
    QSpinBox* m_occurrence;
    QTabWidget* m_tabs;
    RankBarsChart* m_timeBars;
    RankBarsChart* m_kernelBars;
    RankHeatmap* m_heatmap;
    QScrollArea* m_heatmapScroll = nullptr;
    QComboBox* m_heatmapMode;
    QTableWidget* m_offsets;
    std::vector<std::pair<QString, ReportTableView*>> m_tables;
};

} // namespace xt::widgets
