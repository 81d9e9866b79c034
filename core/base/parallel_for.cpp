#include "core/base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace xt {

bool parallelFor(std::size_t n, int threads, const std::function<bool(std::size_t)>& fn) {
    std::size_t workers =
        threads > 0 ? std::size_t(threads) : std::max(1u, std::thread::hardware_concurrency());
    workers = std::min(workers, n);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> ok{true};
    auto work = [&] {
        for (std::size_t i; ok && (i = next++) < n;)
            if (!fn(i)) ok = false;
    };
    if (workers <= 1) {
        work();
        return ok;
    }
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < workers; ++t)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();
    return ok;
}

} // namespace xt
