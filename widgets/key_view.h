#pragma once
// One plot tab: the statistic curves of a key (with their display options) above its
// histogram heatmap and the histogram of the cursor step.

#include "widgets/histogram_view.h"
#include "widgets/stat_plot.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QToolButton;

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
    bool isBusy() const { return m_histograms->isBusy(); }
    StatPlot* statPlot() const { return m_stats; }
    HistogramView* histogramView() const { return m_histograms; }

signals:
    void stepSelected(std::int64_t gstep);

private:
    void updateOptions();
    void updateFollowControls();

    StatPlot* m_stats;
    HistogramView* m_histograms;
    QComboBox* m_xAxis;
    QComboBox* m_ranks;
    QCheckBox* m_minMax;
    QCheckBox* m_std;
    QCheckBox* m_l2;
    QCheckBox* m_logY;
    QDoubleSpinBox* m_smoothing;
    QToolButton* m_follow;
    QLabel* m_paused;
    RunSnapshot m_run;
    QString m_key;
    bool m_ranksChosen = false; // the user picked overlaid or aggregated
};

} // namespace xt::widgets
