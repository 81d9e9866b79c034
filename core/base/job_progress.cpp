#include "core/base/job_progress.h"

namespace xt {

ProgressCallback JobProgress::callback() {
    return [this](const ProgressReport& r) {
        done.store(r.done, std::memory_order_relaxed);
        total.store(r.total, std::memory_order_relaxed);
        if (!r.stage.empty()) {
            std::lock_guard lock(m_mutex);
            if (m_stage != r.stage) m_stage = r.stage;
        }
        return !cancelled.load(std::memory_order_relaxed);
    };
}

std::string JobProgress::stageText() const {
    std::lock_guard lock(m_mutex);
    return m_stage;
}

void JobProgress::setStageText(std::string stage) {
    std::lock_guard lock(m_mutex);
    m_stage = std::move(stage);
}

} // namespace xt
