#pragma once
// One plot tab: the statistic curves of a key (with their display options) above, in two tabs,
// its histogram heatmap with the histogram of the cursor step, and the ranks x steps heatmap.
// Runs of many ranks open aggregated (median and range across ranks, outlier ranks listed) on
// the ranks x steps heatmap; a click there or on a listed outlier opens that rank and step.

#include "widgets/histogram_view.h"
#include "widgets/rank_heatmap.h"
#include "widgets/stat_plot.h"

#include <QJsonObject>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QToolButton;
class QTabWidget;

namespace xt::widgets {

class KeyView : public QWidget {
    Q_OBJECT
public:
    explicit KeyView(QWidget* parent = nullptr);

    void setData(RunSnapshot run, const QString& key);
    // A newer snapshot of the same run whose statistics of key() are the same.
    void replaceRun(RunSnapshot run);
    // A newer snapshot of a followed run: more records (maybe more ranks) of key().
    void extendRun(RunSnapshot run);
    // Whether the newest steps are kept in view (the Follow button, shown for live runs).
    bool isFollowing() const;
    const RunSnapshot& run() const { return m_run; }
    const QString& key() const { return m_key; }
    void setStepCursor(std::int64_t gstep);
    bool isBusy() const;
    StatPlot* statPlot() const { return m_stats; }
    HistogramView* histogramView() const { return m_histograms; }
    RankStepHeatmap* rankHeatmap() const { return m_rankMap; }
    // The tabs under the curves: histograms (0) and ranks x steps (1).
    QTabWidget* lowerTabs() const { return m_lower; }
    // Shows `rank` in the histograms and on the curves (drawn over the aggregate) and, with a
    // step, moves the step cursor there (stepSelected).
    void openRank(int rank, std::optional<std::int64_t> gstep = std::nullopt);
    // The notes of this view's run.
    void setNotes(const std::vector<Note>& notes);
    // Options shown by the bar's controls (the plot follows).
    void setOptions(const StatPlotOptions& options);

    // Display options, zoom, cursors, histogram rank and lower tab, as JSON for sessions
    // (docs/SESSIONS.md); restoreState() after setData.
    QJsonObject saveState() const;
    void restoreState(const QJsonObject& state);

signals:
    void stepSelected(std::int64_t gstep);
    void rankSelected(int rank);
    // "Add note..." in a plot's context menu.
    void noteRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateOptions();
    void updateFollowControls();
    void placeReading(); // over the top edge of the statistic plot, as wide as it
    void showControls(const StatPlotOptions& o);
    void updateOutliers();

    StatPlot* m_stats;
    HistogramView* m_histograms;
    RankStepHeatmap* m_rankMap;
    QTabWidget* m_lower;
    QComboBox* m_xAxis;
    QComboBox* m_ranks;
    QCheckBox* m_minMax;
    QCheckBox* m_std;
    QCheckBox* m_l2;
    QCheckBox* m_logX;
    QCheckBox* m_logY;
    QDoubleSpinBox* m_smoothing;
    QToolButton* m_follow;
    QLabel* m_paused;
    QLabel* m_outliers;
    QLabel* m_reading; // while the key is read in stages, or shown from overviews or a preview
    RunSnapshot m_run;
    QString m_key;
    bool m_ranksChosen = false; // the user picked overlaid or aggregated
    bool m_lowerChosen = false; // the user picked a lower tab
};

} // namespace xt::widgets
