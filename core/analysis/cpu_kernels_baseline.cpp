// The CPU kernels for the baseline target, and the run-time choice between the builds.
#define XT_KERNEL_NS baseline
#include "core/analysis/cpu_kernels_impl.h"

namespace xt::analysis::kernels {

const KernelTable& baselineKernels() {
    static const KernelTable kTable{"baseline", &baseline::stats, &baseline::finishedStats,
                                    &baseline::finishedFloatStats8, &baseline::histogram};
    return kTable;
}

const KernelTable& bestKernels() {
    static const KernelTable* best = [] {
        const KernelTable* avx2 = avx2Kernels();
#if defined(__x86_64__) || defined(__i386__)
        if (avx2 && __builtin_cpu_supports("avx2")) return avx2;
#endif
        return &baselineKernels();
    }();
    return *best;
}

} // namespace xt::analysis::kernels
