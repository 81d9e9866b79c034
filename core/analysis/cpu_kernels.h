#pragma once
// Internal: the CPU kernels, compiled twice (baseline x86-64 and AVX2) and picked at run time.
// Both builds do the same IEEE operations in the same order (no FP contraction), so they give
// bit-identical results.

#include "core/analysis/bin_math.h"
#include "core/analysis/tensor_stats.h"
#include "core/xdl/dtype.h"

#include <cstddef>
#include <cstdint>

namespace xt::analysis::kernels {

struct KernelTable {
    const char* name;
    // Statistics of n elements of `dtype` at p (any alignment).
    StatsAccumulator (*stats)(xdl::Dtype dtype, const std::uint8_t* p, std::size_t n);
    // stats(dtype, p, n).finish() into *out.
    void (*finishedStats)(xdl::Dtype dtype, const std::uint8_t* p, std::size_t n, TensorStats* out);
    // finishedStats of 8 float32 tensors of n elements at p[r] into *out[r], where n is 8, 16, 24
    // or 32; bit r of the result set: tensor r was left undone (a non-finite element, or any n).
    unsigned (*finishedFloatStats8)(const std::uint8_t* const* p, std::size_t n,
                                    TensorStats* const* out);
    // Adds the slot counts (bins + kExtraSlots entries) of n < 2^32 elements at p into counts.
    void (*histogram)(xdl::Dtype dtype, const std::uint8_t* p, std::size_t n, const BinParams& bp,
                      std::uint32_t* counts);
};

const KernelTable& baselineKernels();
const KernelTable* avx2Kernels(); // null when not built for this target
// AVX2 when the CPU has it, else the baseline.
const KernelTable& bestKernels();

} // namespace xt::analysis::kernels
