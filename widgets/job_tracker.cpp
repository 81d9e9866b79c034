#include "widgets/job_tracker.h"

namespace xt::widgets {

void JobTracker::cancel() {
    if (!m_current) return;
    m_current->cancelled.store(true);
    m_current.reset();
    ++m_jobId; // drops the result of the cancelled job
    emit runningChanged(false);
}

} // namespace xt::widgets
