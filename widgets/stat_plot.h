#pragma once
// Statistic curves of one key over steps (QCustomPlot): mean with a min-max band and a
// mean +- std band, L2 norm on the right axis, NaN/Inf markers, log y, debiased EMA smoothing
// drawn over the faint raw curve, ranks overlaid or aggregated (mean and spread across ranks,
// through core/analysis). Lines are min/max decimated to the visible x range so spikes survive
// a million points. A crosshair shows exact values; a click moves the shared step cursor.

#include "core/analysis/step_aggregate.h"
#include "widgets/logic/series_math.h"
#include "widgets/run_loader.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>
#include <qcustomplot.h>

namespace xt::widgets {

struct StatPlotOptions {
    view::XAxisMode xAxis = view::XAxisMode::Gstep;
    bool logY = false;
    bool showMean = true;
    bool minMaxBand = true;
    bool stdBand = true;
    bool showL2 = false; // right axis
    bool aggregateRanks = false;
    int rank = -1;        // only this rank; -1 = every rank
    double smoothing = 0; // EMA weight in [0, 1); 0 = off
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
    // default in a KeyView).
    static constexpr int kLegendRanks = 8;
    const StatPlotOptions& options() const { return m_options; }
    // Options for the next setData (nothing is drawn now).
    void setOptionsQuietly(const StatPlotOptions& options) { m_options = options; }
    const QString& key() const { return m_key; }
    QCustomPlot* plot() const { return m_plot; }
    // The full-resolution data of a drawn line by graph name ("rank 0 mean", "all ranks mean",
    // "rank 1 l2", ...); empty when there is no such line.
    const view::XYSeries* lineData(const QString& name) const;
    // Moves the step cursor (x in the current axis mode is looked up from the gstep).
    void setStepCursor(std::int64_t gstep);
    // Fits both axes to the data.
    void resetZoom();

signals:
    void stepSelected(std::int64_t gstep);
    void followingChanged(bool on);

protected:
    void keyPressEvent(QKeyEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    struct Line {
        QCPGraph* graph = nullptr;
        view::XYSeries data; // full resolution, x ascending
    };
    void rebuild();
    void selectSeries(); // m_series from m_run, m_key and the rank option
    void redecimate();
    void applyPalette();
    QCPGraph* addLine(const QString& name, view::XYSeries data, const QPen& pen, bool rightAxis,
                      bool inLegend = true);
    void onMouseMove(QMouseEvent* e);
    void onMousePress(QMouseEvent* e);
    void onMouseRelease(QMouseEvent* e);
    std::optional<std::int64_t> nearestGstep(double x) const;
    void userMovedView(); // pauses following
    double xOfGstep(std::int64_t gstep) const;

    QCustomPlot* m_plot;
    QCPItemStraightLine* m_cursor;
    QCPItemStraightLine* m_crossV;
    QCPItemStraightLine* m_crossH;
    RunSnapshot m_run;
    QString m_key;
    StatPlotOptions m_options;
    std::vector<const analysis::KeySeries*> m_series;
    std::vector<Line> m_lines;
    std::optional<std::int64_t> m_cursorStep;
    QTimer m_decimateTimer;
    QPoint m_pressPos;
    bool m_following = false;
};

} // namespace xt::widgets
