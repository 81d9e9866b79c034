#include "widgets/job_tracker.h"

#include <QCoreApplication>
#include <algorithm>
#include <cerrno>
#include <utility>
#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace xt::widgets {

QThreadPool* jobPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // lives as long as the process, as the global pool does
        p->setObjectName(QStringLiteral("xtview jobs"));
        // Jobs still running when the application goes (their trackers cancelled them) end
        // first: one running on would meet the statics it uses (the backend) destroyed.
        qAddPostRoutine([] { pool->waitForDone(); });
        return p;
    }();
    return pool;
}

void showProgress(QProgressBar* bar, std::uint64_t done, std::uint64_t total) {
    bar->setUpdatesEnabled(false); // no repaint() in setValue...
    if (total > 0) {
        bar->setRange(0, 1000);
        bar->setValue(int(double(done) / double(total) * 1000));
    } else {
        bar->setRange(0, 0);
    }
    bar->setUpdatesEnabled(true); // ...but an update(), painted with the rest of the window
}

void yieldToGui() {
#ifdef __linux__
    thread_local bool done = false;
    if (std::exchange(done, true)) return;
    const id_t self = id_t(::gettid());
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, self);
    if (errno == 0) (void)::setpriority(PRIO_PROCESS, self, std::min(19, nice + 10));
#endif
}

void JobTracker::cancel() {
    if (!m_current) return;
    m_current->cancelled.store(true);
    m_current.reset();
    ++m_jobId; // drops the result of the cancelled job
    emit runningChanged(false);
}

} // namespace xt::widgets
