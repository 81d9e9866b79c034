// The CPU kernels built for AVX2 (x86-64 only; chosen at run time by bestKernels()).
#include "core/analysis/cpu_kernels.h"

#if defined(__x86_64__)
#define XT_KERNEL_NS avx2
#define XT_KERNEL_AVX2
#include "core/analysis/cpu_kernels_impl.h"

namespace xt::analysis::kernels {
const KernelTable* avx2Kernels() {
    static const KernelTable kTable{"avx2", &avx2::stats, &avx2::finishedStats,
                                    &avx2::finishedFloatStats8, &avx2::histogram};
    return &kTable;
}
} // namespace xt::analysis::kernels
#else
namespace xt::analysis::kernels {
const KernelTable* avx2Kernels() {
    return nullptr;
}
} // namespace xt::analysis::kernels
#endif
