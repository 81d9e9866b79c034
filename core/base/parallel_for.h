#pragma once
// The plain parallel loop of the core's lower layers (no TBB): fn(i) for i in [0, n) on
// `threads` threads (0 = all cores), the calling thread being one of them. It stops handing out
// work once fn returns false, and returns false when any call did. (core/analysis's ParallelLoop
// runs the analysis engine's loops on oneTBB.)

#include <cstddef>
#include <functional>

namespace xt {

bool parallelFor(std::size_t n, int threads, const std::function<bool(std::size_t)>& fn);

} // namespace xt
