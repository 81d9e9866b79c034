#pragma once
// Background jobs for the GUI (after KDAB hotspot's JobTracker): a job runs on jobPool()
// through QtConcurrent; starting a new job cancels the previous one (its atomic
// flag is set, so core's ProgressCallback returns false) and drops its result. The continuation
// runs on the GUI thread only for the newest job. Progress is published through atomics and
// read by the GUI with a timer, so a busy worker never floods the event loop. The tracker's own
// members are used on the GUI thread only; what the worker shares is the JobContext.

#include "core/base/job_progress.h"

#include <QBasicTimer>
#include <QFutureWatcher>
#include <QLabel>
#include <QObject>
#include <QProgressBar>
#include <QString>
#include <QtConcurrent>
#include <memory>

namespace xt::widgets {

// The thread pool of the GUI's background work (jobs, tensor reads). Not Qt's global pool: the
// raster paint engine fills large areas with tasks on that one and waits for them, so work that
// runs for seconds there would freeze painting until it ends.
QThreadPool* jobPool();
// The pool of work that a paint waits for (a plot's lines): not Qt's global pool either, for the
// same reason, and not below the GUI thread as jobPool()'s threads are, nor queued behind them.
QThreadPool* drawPool();
// Puts the calling thread of jobPool() below the GUI thread, once: 10 more nice (per thread on
// Linux, and inherited by the threads it starts). Under load the GUI thread gets the cores
// first; background work runs on what it leaves, as fast as before when it is alone.
void yieldToGui();

// Shows `done` of `total` on `bar` in thousandths (busy while total is 0) without painting the
// window there and then: QProgressBar::setValue repaints at once, and with it everything due in
// the window (20-40 ms of a large run's new plot, inside the progress timer's tick).
void showProgress(QProgressBar* bar, std::uint64_t done, std::uint64_t total);

// A progress bar painted as flat rectangles, left to right: a frame, the part done (and its text
// when visible), and while busy (range 0 to 0) a block that slides across, moved 25 times a
// second while shown. Fusion's bar paints a rounded, gradient-filled frame and stripes, whose
// lines Qt 6.4's raster engine hands to its thread pool and waits for: during the first open of
// a large run that paint took 28% of the GUI thread's time on a CPU.
class FlatProgressBar : public QProgressBar {
public:
    explicit FlatProgressBar(QWidget* parent = nullptr) : QProgressBar(parent) {}

protected:
    void paintEvent(QPaintEvent* event) override;
    void timerEvent(QTimerEvent* event) override;

private:
    bool busy() const { return minimum() == 0 && maximum() == 0; }
    QBasicTimer m_slide;
    int m_phase = 0; // of the busy block, in steps of kSlideSteps
};

// A job's progress: a bar, and beside it a label of fixed size with the stage and percentage.
// The bar paints no text: its text was most of its paint (Fusion) on every tick of a long job.
// A label that may change size would lay the whole window out again on every change of text.
class ProgressStrip : public QWidget {
    Q_OBJECT
public:
    // `widest`: the longest text to be shown, which sets the label's width. `barWidth`: the bar's
    // fixed width, or 0 for a bar that takes the room there is.
    ProgressStrip(const QString& widest, int barWidth, QWidget* parent = nullptr);
    // `done` of `total` (showProgress), and `text` followed by the percentage when total > 0.
    void setProgress(std::uint64_t done, std::uint64_t total, const QString& text);
    // A bar at 0 or full, or busy, with no text.
    void reset(bool full = false);
    void setBusy();
    QProgressBar* bar() const { return m_bar; }
    QLabel* label() const { return m_label; }

private:
    QLabel* m_label;
    QProgressBar* m_bar;
};

// Shared between one job and the GUI: core's JobProgress (the thread-safe part, tested under
// TSan without Qt) with the stage as a QString.
class JobContext : public JobProgress {
public:
    QString stage() const { return QString::fromStdString(stageText()); }
    void setStage(const QString& s) { setStageText(s.toStdString()); }
};

class JobTracker : public QObject {
    Q_OBJECT
public:
    explicit JobTracker(QObject* parent = nullptr) : QObject(parent) {}
    ~JobTracker() override { cancel(); }

    // job(JobContext&) -> T runs off the GUI thread; then(T) runs on the GUI thread when this
    // is still the newest job.
    template <class Job, class Then> void startJob(Job&& job, Then&& then) {
        using T = std::invoke_result_t<Job, JobContext&>;
        cancel();
        const quint64 id = ++m_jobId;
        auto ctx = std::make_shared<JobContext>();
        m_current = ctx;
        auto* watcher = new QFutureWatcher<T>(this);
        connect(watcher, &QFutureWatcherBase::finished, this,
                [this, watcher, id, then = std::forward<Then>(then)]() mutable {
                    watcher->deleteLater();
                    if (id != m_jobId) return;
                    m_current.reset();
                    emit runningChanged(false);
                    then(watcher->result());
                });
        watcher->setFuture(
            QtConcurrent::run(jobPool(), [ctx, job = std::forward<Job>(job)]() mutable {
                yieldToGui();
                return job(*ctx);
            }));
        emit runningChanged(true);
    }

    bool isRunning() const { return m_current != nullptr; }
    // The running job's context (progress), or null.
    std::shared_ptr<JobContext> current() const { return m_current; }
    // Cancels the running job; its continuation will not run.
    void cancel();

signals:
    void runningChanged(bool running);

private:
    quint64 m_jobId = 0;
    std::shared_ptr<JobContext> m_current;
};

} // namespace xt::widgets
