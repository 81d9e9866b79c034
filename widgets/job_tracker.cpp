#include "widgets/job_tracker.h"

namespace xt::widgets {

QThreadPool* jobPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // lives as long as the process, as the global pool does
        p->setObjectName(QStringLiteral("xtview jobs"));
        return p;
    }();
    return pool;
}

void JobTracker::cancel() {
    if (!m_current) return;
    m_current->cancelled.store(true);
    m_current.reset();
    ++m_jobId; // drops the result of the cancelled job
    emit runningChanged(false);
}

} // namespace xt::widgets
