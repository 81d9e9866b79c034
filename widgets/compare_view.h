#pragma once
// A compare tab: two runs (or two ranks of one run), A and B, compared key by key. On the left
// the key table ranked by divergence (KeyDivergenceModel over analysis::compareRanks, computed
// off the GUI thread with progress and cancel); on the right, for the selected key, one
// QCustomPlot with three panels on the aligned step axis (gstep, lstep or relative step):
//   curves   - a statistic of A (blue) and B (orange)
//   delta    - B - A of that statistic, and the element-wise max |a - b| (right axis)
//   hists    - histograms of A and B at the cursor step, on one bin layout (computed off the
//              GUI thread)
// The step panels share their x range (rangeChanged both ways) and the step cursor; selecting
// a key moves the cursor to its first difference. The plot is what the export writes.

#include "core/analysis/histogram.h"
#include "core/analysis/run_compare.h"
#include "core/analysis/step_aggregate.h"
#include "widgets/job_tracker.h"
#include "widgets/key_divergence_model.h"
#include "widgets/logic/series_math.h"
#include "widgets/notes.h"
#include "widgets/run_loader.h"

#include <QTimer>
#include <QWidget>
#include <map>
#include <qcustomplot.h>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;

namespace xt::widgets {

struct CompareSide {
    RunSnapshot run;
    int rank = 0;
    QString name; // the run's name in titles and legends; "" = its label's file name
};

struct CompareRequest {
    CompareSide a, b;
    analysis::StepAlign align = analysis::StepAlign::Gstep;
    double atol = 1e-8, rtol = 1e-5;
};

class CompareView : public QWidget {
    Q_OBJECT
public:
    enum class Panel { Curves, Delta, HistA, HistB };

    explicit CompareView(QWidget* parent = nullptr);

    // Starts comparing (in the background); the key table fills when done.
    void setRequest(const CompareRequest& request);
    const CompareRequest& request() const { return m_request; }
    // New names of the runs of A and B (a rename): titles and legends follow, nothing is redone.
    void setSideNames(const QString& a, const QString& b);
    void setAlign(analysis::StepAlign align);
    void setTolerance(double atol, double rtol);
    void setStatistic(analysis::StatField field);
    analysis::StatField statistic() const { return m_field; }

    // A newer snapshot of a compared run (more statistics): the curves are drawn again.
    void replaceRun(const RunSnapshot& before, const RunSnapshot& after);
    // Shows `key` (selects its row when it has one).
    void showKey(const QString& key);
    const QString& key() const { return m_key; }
    // Moves the cursor of every panel to this aligned step.
    void setCursorStep(std::int64_t step);
    std::optional<std::int64_t> cursorStep() const { return m_cursor; }

    // Comparing or computing histograms.
    bool isBusy() const { return m_compareJobs->isRunning() || m_histJobs->isRunning(); }
    void cancel();
    // The last comparison's error ("" when it succeeded or was not run).
    const QString& error() const { return m_error; }

    KeyDivergenceModel* model() const { return m_model; }
    QTableView* keyTable() const { return m_table; }
    QCustomPlot* plot() const { return m_plot; }
    QCPAxis* xAxis(Panel p) const;
    // The x of the cursor line of a step panel, or nullopt when it is hidden.
    std::optional<double> cursorX(Panel p) const;
    // Full-resolution data of a drawn line: "A", "B", "B - A", "max |a-b|".
    const view::XYSeries* lineData(const QString& name) const;
    // The histograms on screen and the aligned step they belong to (null until computed).
    const analysis::Histogram* histogram(Panel p) const;
    std::optional<std::int64_t> histogramStep() const { return m_histStep; }
    // A one-line description: "a/run rank 0 vs b/run rank 0, aligned by gstep".
    QString title() const;
    // Notes of the runs of A and B, drawn over the step panels at their aligned steps.
    void setNotes(std::vector<Note> a, std::vector<Note> b);
    std::size_t noteItemCount() const { return m_noteItems.size(); }
    // PNG, PDF or SVG by suffix (widgets/plot_export), with or without the notes; false with
    // `error` set on failure.
    bool exportImage(const QString& path, int width = 0, int height = 0, QString* error = nullptr,
                     bool notes = true) const;

signals:
    void stepSelected(std::int64_t step);
    // The comparison finished (also after a failure; see error()).
    void compared();
    void histogramsReady();

protected:
    void changeEvent(QEvent* e) override;

private:
    struct Line {
        QCPGraph* graph = nullptr;
        view::XYSeries data;
    };
    // The records of the shown key on one side, by aligned step (the first record of a step).
    using StepRecords = std::map<std::int64_t, analysis::RecordStats>;

    void startCompare();
    void onCompared();
    void rebuildPlots();
    void showNames();
    void redecimate();
    void addLine(const QString& name, QCPAxis* x, QCPAxis* y, view::XYSeries data, const QPen& pen);
    void updateCursorLines();
    void startHistograms();
    void showHistograms();
    void fitSteps();
    void applyPalette();
    void updateProgress();
    StepRecords stepRecords(const CompareSide& side, std::int64_t origin) const;
    std::optional<std::int64_t> nearestStep(double x) const;
    void onPlotClick(QMouseEvent* e);
    void drawNotes();

    CompareRequest m_request;
    std::int64_t m_originA = 0, m_originB = 0;
    analysis::StatField m_field = analysis::StatField::Mean;
    QString m_key;
    std::optional<std::int64_t> m_cursor;
    QString m_error;
    StepRecords m_recA, m_recB;

    JobTracker* m_compareJobs;
    JobTracker* m_histJobs;
    KeyDivergenceModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_sides;
    QLabel* m_status;
    QComboBox* m_stat;
    QComboBox* m_align;
    QLineEdit* m_atol;
    QLineEdit* m_rtol;
    ProgressStrip* m_progress;
    QToolButton* m_cancel;
    QTimer m_progressTimer;
    QTimer m_decimateTimer;

    QCustomPlot* m_plot;
    QCPTextElement* m_title;
    QCPAxisRect* m_curves;
    QCPAxisRect* m_delta;
    QCPAxisRect* m_histA;
    QCPAxisRect* m_histB;
    QCPBars* m_barsA;
    QCPBars* m_barsB;
    QCPItemStraightLine* m_cursorCurves;
    QCPItemStraightLine* m_cursorDelta;
    std::vector<Line> m_lines;
    bool m_syncing = false;
    QPoint m_pressPos;

    std::shared_ptr<const std::pair<analysis::Histogram, analysis::Histogram>> m_hists;
    std::optional<std::int64_t> m_histStep;
    std::vector<Note> m_notesA, m_notesB;
    std::vector<QCPAbstractItem*> m_noteItems;
};

} // namespace xt::widgets
