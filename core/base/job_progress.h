#pragma once
// The state one background job shares with the thread that watches it (the viewer's GUI thread,
// through widgets/job_tracker.h): the worker publishes progress through callback(); the watcher
// reads done, total and the stage at any time and may cancel, which the worker's next progress
// report turns into "stop". Every member is safe to use from both threads at once.

#include "core/base/progress.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace xt {

class JobProgress {
public:
    std::atomic<bool> cancelled{false};
    std::atomic<std::uint64_t> done{0}, total{0};

    // A ProgressCallback that publishes each report and returns false once cancelled.
    ProgressCallback callback();
    // The last non-empty stage reported, or set.
    std::string stageText() const;
    void setStageText(std::string stage);

private:
    mutable std::mutex m_mutex;
    std::string m_stage;
};

} // namespace xt
