#include "core/analysis/parallel_loop.h"

namespace xt::analysis {

#if defined(XT_PARALLEL_LOOP_THREADS)

ParallelLoop::ParallelLoop(int threads)
    : m_threads(threads > 0 ? unsigned(threads)
                            : std::max(1u, std::thread::hardware_concurrency())) {}

unsigned ParallelLoop::slots() const {
    return m_threads;
}

#else

ParallelLoop::ParallelLoop(int threads) {
    const int automatic = tbb::task_arena::automatic; // a copy: the constant has no definition
    m_arena = std::make_unique<tbb::task_arena>(threads > 0 ? threads : automatic);
}

unsigned ParallelLoop::slots() const {
    return unsigned(m_arena->max_concurrency());
}

#endif

} // namespace xt::analysis
