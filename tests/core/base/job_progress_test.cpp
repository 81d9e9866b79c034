// The state a background job shares with the GUI (JobProgress, the core of widgets' JobContext),
// used from several threads the way JobTracker uses it: workers report, the watcher reads the
// progress and the stage, and starting a newer job cancels the older one. Run under TSan in the
// tsan preset, which builds no Qt.
#include "core/base/job_progress.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

using namespace xt;

TEST(JobProgress, ReportsUntilCancelled) {
    JobProgress p;
    auto cb = p.callback();
    EXPECT_TRUE(cb({3, 10, "reading"}));
    EXPECT_EQ(p.done.load(), 3u);
    EXPECT_EQ(p.total.load(), 10u);
    EXPECT_EQ(p.stageText(), "reading");
    EXPECT_TRUE(cb({4, 10, ""})); // an empty stage keeps the last one
    EXPECT_EQ(p.stageText(), "reading");
    p.setStageText("comparing");
    EXPECT_EQ(p.stageText(), "comparing");
    p.cancelled = true;
    EXPECT_FALSE(cb({5, 10, "reading"}));
    EXPECT_EQ(p.done.load(), 5u);
}

TEST(JobProgress, WorkersAndAWatcherOnSeveralThreads) {
    // The watcher starts job after job; each start cancels the previous one, as JobTracker does.
    constexpr int kJobs = 8;
    std::vector<std::thread> workers;
    std::vector<std::shared_ptr<JobProgress>> jobs;
    std::atomic<int> stoppedByCancel{0};
    std::shared_ptr<JobProgress> current;
    for (int j = 0; j < kJobs; ++j) {
        if (current) current->cancelled = true;
        current = std::make_shared<JobProgress>();
        jobs.push_back(current);
        workers.emplace_back([job = current, &stoppedByCancel, j] {
            auto cb = job->callback();
            // Runs until cancelled (every job is, at the latest after the loop below), so the
            // outcome does not depend on how the threads are scheduled.
            for (std::uint64_t i = 0;; i = (i + 1) % 2000000) {
                if (!cb({i, 2000000, i % 2 ? "odd" : "even"})) {
                    ++stoppedByCancel;
                    return;
                }
                if (i % 1000 == 0) job->setStageText("job " + std::to_string(j));
            }
        });
        // Watch the newest job a little: read what the worker publishes.
        for (int k = 0; k < 200; ++k) {
            const auto done = current->done.load(), total = current->total.load();
            EXPECT_LE(done, total == 0 ? done : total);
            EXPECT_FALSE(current->stageText().size() > 16);
            std::this_thread::yield();
        }
    }
    current->cancelled = true;
    for (auto& w : workers)
        w.join();
    for (const auto& job : jobs)
        EXPECT_TRUE(job->cancelled.load());
    EXPECT_EQ(stoppedByCancel.load(), kJobs);
}
