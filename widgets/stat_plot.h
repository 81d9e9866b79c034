#pragma once
// Statistic curves of one key over steps (QCustomPlot): mean with a min-max band and a
// mean +- std band, L2 norm on the right axis, NaN/Inf markers, log x and log y, debiased EMA
// smoothing drawn over the faint raw curve, ranks overlaid or aggregated. Aggregated, the mean is
// the median across ranks with a band from the lowest to the highest rank, and only the outlier
// ranks (analysis::rankSpread: median absolute deviation, the rule written in the legend) are
// drawn. Lines are min/max decimated to the visible x range so spikes survive a million points.
// The legend sits right of the axes, never over the data. A crosshair shows exact values; a
// click moves the shared step cursor; cursors A and B show the values at two steps and their
// differences; notes of the run are drawn as lines and bands.

#include "core/analysis/rank_spread.h"
#include "core/analysis/step_aggregate.h"
#include "widgets/cursors.h"
#include "widgets/logic/series_math.h"
#include "widgets/notes.h"
#include "widgets/plot_widget.h"
#include "widgets/run_loader.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>
#include <array>
#include <functional>
#include <optional>
#include <qcustomplot.h>

class QLabel;

namespace xt::widgets {

struct StatPlotOptions {
    view::XAxisMode xAxis = view::XAxisMode::Gstep;
    // Log x: steps, or seconds since the first record on the wall-time axis; x <= 0 is not drawn.
    bool logX = false;
    bool logY = false;
    bool showMean = true;
    bool minMaxBand = true;
    bool stdBand = true;
    bool showL2 = false; // right axis
    bool aggregateRanks = false;
    int highlightRank = -1; // aggregated: this rank is drawn as well
    int rank = -1;          // only this rank; -1 = every rank
    double smoothing = 0;   // EMA weight in [0, 1); 0 = off
    // Extra statistics drawn as plain lines (min/max/mean/std left axis, the others right).
    std::vector<analysis::StatField> lines;
};

class StatPlot : public QWidget {
    Q_OBJECT
public:
    explicit StatPlot(QWidget* parent = nullptr);

    void setData(RunSnapshot run, const QString& key);
    // A newer snapshot of the same run whose statistics of key() are the same: zoom and
    // curves stay.
    void replaceRun(RunSnapshot run);
    // A newer snapshot whose series of key() grew (a followed run): the curves are redrawn.
    // While following, the axes fit the data so the newest steps are in view; else the zoom
    // stays.
    void extendRun(RunSnapshot run);
    // Zooming or panning pauses following (followingChanged(false)); End resumes it.
    void setFollowing(bool on);
    bool isFollowing() const { return m_following; }
    void setOptions(const StatPlotOptions& options);
    // Ranks named in the legend; more are counted in one entry (and drawn aggregated by
    // default in a KeyView). Also the most outlier ranks drawn when aggregated.
    static constexpr int kLegendRanks = 8;
    // Series of this many records in all have their lines built in the background (aggregated
    // ranks: records times the bits of the rank count).
    static constexpr std::size_t kBackgroundBuildRecords = 200000;
    const StatPlotOptions& options() const { return m_options; }
    // Options for the next setData (nothing is drawn now).
    void setOptionsQuietly(const StatPlotOptions& options) { m_options = options; }
    const QString& key() const { return m_key; }
    // Lines are being built in the background (large series): lineData() and the plot show
    // them once this turns false.
    bool isBuilding() const { return m_building; }
    const RunSnapshot& run() const { return m_run; }
    QCustomPlot* plot() const { return m_plot; }
    // The full-resolution points of a drawn line by graph name ("rank 0 mean", "median of ranks",
    // "rank 1 l2", ...), those without a value left out; nullopt when there is no such line.
    std::optional<view::XYSeries> lineData(const QString& name) const;
    // The mean across ranks (median, range, outlier ranks) while aggregated, else empty.
    const analysis::RankSpread& spread() const { return m_spread; }
    // Moves the step cursor (x in the current axis mode is looked up from the gstep).
    void setStepCursor(std::int64_t gstep);
    std::optional<std::int64_t> stepCursor() const { return m_cursorStep; }
    // Fits both axes to the data.
    void resetZoom();
    // Leaves this many pixels free above the axes and the legend (for a line drawn over them).
    void reserveTop(int pixels);

    // Cursors A and B, at global steps (nullopt hides one).
    void setCursorAt(Cursor c, std::optional<std::int64_t> gstep);
    std::optional<std::int64_t> cursorAt(Cursor c) const { return m_cursors[int(c)]; }
    // Puts `c` at the record under the mouse, else at the step cursor, else mid-view.
    void placeCursor(Cursor c);
    void clearCursors();
    // The steps, times and every value line at A and B, with B - A, tab-separated (empty
    // without a cursor); copyCursors() puts it on the clipboard.
    QString cursorText() const;
    void copyCursors() const;
    // The one-line summary under the plot.
    QLabel* cursorReadout() const { return m_readout; }

    void setNotes(std::vector<Note> notes);
    const std::vector<Note>& notes() const { return m_notes; }
    std::size_t noteItemCount() const { return m_noteItems.size(); }

signals:
    void stepSelected(std::int64_t gstep);
    void followingChanged(bool on);
    void cursorsChanged();
    // "Add note..." in the context menu, after moving the step cursor to `gstep`.
    void noteRequested(std::int64_t gstep);
    // The aggregate was recomputed (spread() changed).
    void spreadChanged();

protected:
    void keyPressEvent(QKeyEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    struct Line {
        QCPGraph* graph = nullptr;
        view::LinePoints data; // full resolution, x ascending
        // Of data (shared by lines with equal points): decimation reads whole blocks from here.
        std::shared_ptr<const view::BlockExtrema> blocks;
        bool value = false;                 // a value line (not a band edge, marker or legend text)
        QPen pen;                           // as built; dense lines are drawn a pixel wide
        view::Keep keep = view::Keep::Both; // a band's edge keeps one side of each bucket
    };
    // One line as built (off the GUI thread for large series); applyLines makes it a graph.
    struct LineSpec {
        QString name;
        view::LinePoints data;
        QPen pen;
        bool rightAxis = false;
        bool inLegend = true;
        bool value = false;   // see Line
        QColor fill;          // valid: a band's upper edge, filled down to the line before it
        bool markers = false; // points only (the NaN/Inf triangles)
        std::shared_ptr<const view::BlockExtrema> blocks;
        view::Keep keep = view::Keep::Both; // see Line
    };
    struct Fitted { // each line's points for the view a fit shows
        view::DecimatedView view;
        std::vector<view::XYSeries> points;
    };
    struct BuiltLines {
        RunSnapshot run; // holds the series that lines read in place
        std::vector<LineSpec> lines;
        analysis::RankSpread spread;
        bool rightAxis = false;
        std::optional<Fitted> fitted; // when built in the background for a fit
    };
    // Builds the lines of m_series, then runs `then` (on the GUI thread, at once or when a
    // background build is applied). fits: `then` fits the axes. clearNow: large lines of another
    // key leave the plot now.
    void rebuild(std::function<void()> then, bool fits, bool clearNow = false);
    static BuiltLines buildLines(const std::vector<const analysis::KeySeries*>& shown,
                                 const StatPlotOptions& options, view::XAxisMode mode,
                                 double timeOrigin);
    void applyLines(BuiltLines built);
    static std::optional<Fitted> decimateForFit(const std::vector<LineSpec>& lines,
                                                std::size_t buckets,
                                                const StatPlotOptions& options);
    std::size_t bucketsNow(); // of redecimate: a bucket per pixel of the axis rect
    void selectSeries();      // m_series from m_run, m_key and the rank option
    void redecimate();
    void applyPalette();
    void onMouseMove(QMouseEvent* e);
    void onMousePress(QMouseEvent* e);
    void onMouseRelease(QMouseEvent* e);
    void showContextMenu(QPoint pos);
    view::XAxisMode xMode() const;
    double xOfRecord(const analysis::RecordStats& r) const;
    std::optional<std::int64_t> nearestGstep(double x) const;
    void userMovedView(); // pauses following
    double xOfGstep(std::int64_t gstep) const;
    // The first record at or after `gstep` on any shown rank.
    std::optional<analysis::RecordStats> recordAtOrAfter(std::int64_t gstep) const;
    void updateCursorItems();
    void drawNotes();

    PlotWidget* m_plot;
    QLabel* m_readout;
    QCPItemStraightLine* m_cursor;
    QCPItemStraightLine* m_crossV;
    QCPItemStraightLine* m_crossH;
    std::array<QCPItemStraightLine*, 2> m_cursorLines{};
    std::array<QCPItemText*, 2> m_cursorLabels{};
    std::array<std::optional<std::int64_t>, 2> m_cursors;
    RunSnapshot m_run;
    QString m_key;
    StatPlotOptions m_options;
    std::vector<const analysis::KeySeries*> m_series;
    analysis::RankSpread m_spread;
    double m_timeOrigin = 0; // log x on wall time: seconds of the first record
    std::vector<Line> m_lines;
    RunSnapshot m_linesRun; // the run m_lines were built from (they read its series)
    // The view the lines were last decimated for (redecimate() skips a pass for the same one).
    std::optional<view::DecimatedView> m_decimated;
    std::optional<Fitted> m_fitted; // of the lines applied last, until redecimate() takes it
    quint64 m_buildGeneration = 0;
    bool m_building = false;
    std::function<void()> m_extendAfterBuild; // extendRun's rebuild, once the one in flight ends
    std::optional<std::int64_t> m_cursorStep;
    std::vector<Note> m_notes;
    std::vector<QCPAbstractItem*> m_noteItems;
    QTimer m_decimateTimer;
    QPoint m_pressPos;
    bool m_following = false;
};

} // namespace xt::widgets
