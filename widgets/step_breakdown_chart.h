#pragma once
// Step breakdown chart of the timeline page: one stacked bar per step (QCustomPlot, one QCPBars
// per StepCategory in fixed colours, legend), x = step with the step names as tick labels,
// y = milliseconds. Each step's bottleneck is written above its bar (up to 40 steps) and in the
// table under the chart (step, duration, bottleneck, its share). Clicking a bar, or
// double-clicking a table row, emits stepActivated with the step's window. The marker prefix is
// editable; a trace without markers shows a message instead of an empty chart.

#include "core/timeline/step_breakdown.h"
#include "core/timeline/trace_store.h"
#include "widgets/job_tracker.h"

#include <QWidget>
#include <memory>
#include <vector>

class QCustomPlot;
class QLabel;
class QLineEdit;
class QMouseEvent;
class QStackedWidget;
class QTableWidget;

namespace xt::widgets {

class StepBreakdownChart : public QWidget {
    Q_OBJECT
public:
    explicit StepBreakdownChart(QWidget* parent = nullptr);

    void setStore(std::shared_ptr<const timeline::TraceStore> store);
    void setMarkerPrefix(const QString& prefix); // default "ProfilerStep#"
    QString markerPrefix() const;

    const std::vector<timeline::StepBreakdown>& steps() const { return m_steps; }
    QCustomPlot* plot() const { return m_plot; }
    QTableWidget* table() const { return m_table; }
    // The "no step markers" message while it is shown, else empty.
    QString message() const;
    // Text above the bar of step `index` ("device compute 63%"), empty when not drawn.
    QString barLabel(int index) const;
    // Where the bar of step `index` is in plot() widget coordinates (its middle).
    QPoint barCenter(int index) const;
    bool isBusy() const { return m_jobs->isRunning(); }
    // Traces with more slices than this are broken down in the background (default 200000).
    void setBackgroundThreshold(std::size_t slices) { m_backgroundSlices = slices; }

    static QColor categoryColor(timeline::StepCategory c);
    static QString categoryLabel(timeline::StepCategory c); // "Device compute", ...

signals:
    void stepActivated(qint64 startNs, qint64 endNs);
    void stepsReady();

private:
    void recompute();
    void display(std::vector<timeline::StepBreakdown> steps);
    int stepAt(const QPoint& pos) const;
    void onMouseMove(QMouseEvent* e);
    void onMouseRelease(QMouseEvent* e);

    std::shared_ptr<const timeline::TraceStore> m_store;
    std::vector<timeline::StepBreakdown> m_steps;
    std::vector<QString> m_barLabels;
    QString m_computedPrefix;
    std::size_t m_backgroundSlices = 200000;
    QLineEdit* m_prefix;
    QStackedWidget* m_stack;
    QCustomPlot* m_plot;
    QTableWidget* m_table;
    QLabel* m_message;
    QLabel* m_status;
    JobTracker* m_jobs;
    QPoint m_pressPos;
};

} // namespace xt::widgets
