#pragma once
// The analysis engine's parallel loop: body(i, slot) for every i in [0, n), on a oneTBB arena of
// `threads` threads (0: every core). `slot` (< slots()) names the running thread, for per-thread
// scratch buffers. An exception from a body stops the loop and is rethrown by run().
//
// Under ThreadSanitizer (the tsan preset) the iterations run on plain std::threads instead:
// oneTBB's scheduler lives in an uninstrumented library, so TSan would miss its synchronisation
// and report its internals. The bodies, the code of this project, are then checked as they run
// concurrently; the results are the same (partial results are merged in a fixed order).

#include <cstddef>
#include <memory>

#if defined(__SANITIZE_THREAD__)
#define XT_PARALLEL_LOOP_THREADS 1
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#else
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace xt::analysis {

class ParallelLoop {
public:
    explicit ParallelLoop(int threads = 0);
    unsigned slots() const;

    template <class Body> void run(std::size_t n, Body&& body) {
#if defined(XT_PARALLEL_LOOP_THREADS)
        std::atomic<std::size_t> next{0};
        std::mutex failedMutex;
        std::exception_ptr failed;
        const unsigned workers = unsigned(std::min<std::size_t>(m_threads, n));
        std::vector<std::thread> pool;
        for (unsigned slot = 0; slot < workers; ++slot)
            pool.emplace_back([&, slot] {
                try {
                    for (std::size_t i; (i = next.fetch_add(1)) < n;)
                        body(i, slot);
                } catch (...) {
                    next = n; // the others stop too
                    std::lock_guard lock(failedMutex);
                    if (!failed) failed = std::current_exception();
                }
            });
        for (auto& t : pool)
            t.join();
        if (failed) std::rethrow_exception(failed);
#else
        m_arena->execute([&] {
            tbb::parallel_for(std::size_t(0), n, [&](std::size_t i) {
                body(i, unsigned(tbb::this_task_arena::current_thread_index()));
            });
        });
#endif
    }

private:
#if defined(XT_PARALLEL_LOOP_THREADS)
    unsigned m_threads;
#else
    std::unique_ptr<tbb::task_arena> m_arena;
#endif
};

} // namespace xt::analysis
