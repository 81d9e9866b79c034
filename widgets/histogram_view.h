#pragma once
// Histograms of one key over steps: a steps x bins heatmap (QCPColorMap, colour = log10(1 +
// count)) with its colour scale, and the histogram of the step under the shared cursor. The
// matrix is computed off the GUI thread by core/analysis (stepHistograms) for one rank. Each
// record's colour reaches to the rank's next record, so strided steps leave no empty columns;
// the cursor shows the record whose column it is in. A run of more steps than columns merges
// neighbouring steps; zoomed in there, the steps in view are computed again, one a column, and
// drawn over the whole in the same bins.

#include "core/analysis/step_histogram.h"
#include "widgets/job_tracker.h"
#include "widgets/notes.h"
#include "widgets/run_loader.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <qcustomplot.h>

class QComboBox;
class QSpinBox;
class QLabel;

namespace xt::widgets {

class HistogramView : public QWidget {
    Q_OBJECT
public:
    explicit HistogramView(QWidget* parent = nullptr);

    void setData(RunSnapshot run, const QString& key);
    // A newer snapshot of the same run (same records of key()): nothing is recomputed.
    // The same run, read further: the matrix stays, unless it waited for a run shown from its
    // summaries' overviews (LoadedRun::overview) to be opened in full.
    void replaceRun(RunSnapshot run);
    // A newer snapshot of a followed run (more records of key()): new ranks are offered and the
    // matrix is recomputed in the background, at most once per second; the old one stays on
    // screen meanwhile.
    void extendRun(RunSnapshot run);
    void setStepCursor(std::int64_t gstep);
    // The rank whose histograms are shown (-1 when none).
    int rank() const;
    // Shows the histograms of `rank` (when the key has it).
    void setRank(int rank);
    // Notes of the run, drawn over the heatmap's steps.
    void setNotes(std::vector<Note> notes);
    bool isBusy() const { return m_jobs->isRunning() || m_detailJobs->isRunning(); }
    // The matrix on screen, or null while none is.
    const analysis::HistogramMatrix* matrix() const { return m_matrix.get(); }
    // The matrix of the steps in view drawn over it when zoomed in where it merges steps, or null.
    const analysis::HistogramMatrix* detail() const { return m_detail.get(); }
    QCustomPlot* heatmapPlot() const { return m_heatmap; }
    QCustomPlot* stepPlot() const { return m_stepPlot; }

signals:
    void stepSelected(std::int64_t gstep);
    void failed(const QString& message);
    void finished();

protected:
    void changeEvent(QEvent* e) override;

private:
    void recompute();
    // Computes the matrix in the background: approximated from the run's summaries first
    // (shown at once), then exactly from the tensor bytes.
    void startMatrixJob(bool approximate);
    // `cells`: the heatmap's, built with the matrix off the GUI thread.
    void showMatrix(std::shared_ptr<const analysis::HistogramMatrix> m,
                    std::unique_ptr<QCPColorMapData> cells);
    void showStep();
    void showInfo();
    // Computes the detail of the steps in view (and half as many on each side) when it would
    // merge fewer steps a column than the matrix does there and no detail as fine covers them;
    // else drops it.
    void updateDetail();
    void clearDetail();
    // The detail when it holds `step`, else the matrix.
    const analysis::HistogramMatrix* matrixAt(std::int64_t step) const;
    void applyPalette();
    void drawNotes();

    JobTracker* m_jobs;
    JobTracker* m_detailJobs;
    QComboBox* m_rank;
    QSpinBox* m_bins;
    QComboBox* m_scale;
    QLabel* m_info;
    QCustomPlot* m_heatmap;
    QCustomPlot* m_stepPlot;
    QCPColorMap* m_map;
    QCPColorMap* m_detailMap; // over m_map
    QCPColorScale* m_colorScale;
    QCPBars* m_bars;
    QCPItemStraightLine* m_cursor;
    RunSnapshot m_run;
    bool m_approximate = false; // the matrix on screen comes from sketches
    QString m_key;
    std::shared_ptr<const analysis::HistogramMatrix> m_matrix;
    std::shared_ptr<const analysis::HistogramMatrix> m_detail;
    analysis::StepRange m_detailRange; // asked for (the detail may be on its way)
    std::uint64_t m_detailPer = 0;     // about how many steps a column it merges
    analysis::BinLayout m_detailBins;  // the bins it was asked for in
    QTimer m_detailTimer;              // after the step axis changed
    bool m_settingRange = false;       // the view sets the step axis, not the user
    bool m_zoomed = false;             // the user narrowed the step axis: live updates keep it
    QString m_summary;                 // of the matrix, for m_info
    std::optional<std::int64_t> m_cursorStep;
    // Paces extendRun's recomputation: 1 s after the last exact matrix, or four times as long as
    // it took when longer (it reads every tensor of the key again: a long run's took seconds).
    QTimer m_liveTimer;
    QElapsedTimer m_exactClock; // since the exact matrix job started
    std::vector<Note> m_notes;
    std::vector<QCPAbstractItem*> m_noteItems;
};

} // namespace xt::widgets
