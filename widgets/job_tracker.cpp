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

ProgressCallback JobContext::callback() {
    return [this](const ProgressReport& r) {
        done.store(r.done, std::memory_order_relaxed);
        total.store(r.total, std::memory_order_relaxed);
        if (!r.stage.empty()) {
            std::lock_guard lock(m_mutex);
            if (m_stage != QLatin1String(r.stage.data(), qsizetype(r.stage.size())))
                m_stage = QString::fromUtf8(r.stage.data(), qsizetype(r.stage.size()));
        }
        return !cancelled.load(std::memory_order_relaxed);
    };
}

QString JobContext::stage() const {
    std::lock_guard lock(m_mutex);
    return m_stage;
}

void JobContext::setStage(const QString& s) {
    std::lock_guard lock(m_mutex);
    m_stage = s;
}

void JobTracker::cancel() {
    if (!m_current) return;
    m_current->cancelled.store(true);
    m_current.reset();
    ++m_jobId; // drops the result of the cancelled job
    emit runningChanged(false);
}

} // namespace xt::widgets
