// The baseline and AVX2 builds of the CPU kernels give bit-identical results.
#include "core/analysis/cpu_kernels.h"

#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

namespace xt::analysis::kernels {
namespace {

TEST(CpuKernels, BaselineAndAvx2Agree) {
    const KernelTable* avx2 = avx2Kernels();
    if (!avx2 || !__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 here";
    const KernelTable& base = baselineKernels();
    std::mt19937_64 rng(1);
    std::normal_distribution<double> normal(3.0, 7.0);
    std::vector<std::uint8_t> bytes(8 * 50001 + 3);
    for (auto& b : bytes)
        b = std::uint8_t(rng());
    for (int d = 0; d < xdl::kDtypeCount; ++d) {
        const auto dtype = xdl::Dtype(d);
        const std::size_t es = xdl::elementSize(dtype);
        const std::size_t n = 50001;
        if (dtype == xdl::Dtype::Float || dtype == xdl::Dtype::Double) {
            for (std::size_t i = 0; i < n; ++i) { // mostly normal values, some NaN/Inf
                const double v = i % 97 == 0   ? std::numeric_limits<double>::quiet_NaN()
                                 : i % 89 == 0 ? std::numeric_limits<double>::infinity()
                                               : normal(rng);
                if (dtype == xdl::Dtype::Float) {
                    const float f = float(v);
                    std::memcpy(bytes.data() + 3 + i * es, &f, 4);
                } else {
                    std::memcpy(bytes.data() + 3 + i * es, &v, 8);
                }
            }
        }
        if (dtype == xdl::Dtype::Bool)
            for (std::size_t i = 0; i < n; ++i)
                bytes[3 + i] &= 1;
        const std::uint8_t* p = bytes.data() + 3; // unaligned
        const StatsAccumulator a = base.stats(dtype, p, n), b = avx2->stats(dtype, p, n);
        EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << xdl::dtypeName(dtype);
        BinLayout layout{257, -10.0, 20.0};
        const BinParams bp = BinParams::from(layout);
        std::vector<std::uint32_t> ca(257 + kExtraSlots), cb(257 + kExtraSlots);
        base.histogram(dtype, p, n, bp, ca.data());
        avx2->histogram(dtype, p, n, bp, cb.data());
        EXPECT_EQ(ca, cb) << xdl::dtypeName(dtype);
    }
}

TEST(CpuKernels, Float32OnEdgesMatchesScalarRule) {
    // float32 values at, just below and just above every double edge, for ranges whose edges
    // are not floats; the best kernels (single-precision path on AVX2) must agree with the
    // scalar double rule of bin_math.h.
    for (const BinLayout& layout : {BinLayout{10, 0.0, 1.0}, BinLayout{4096, -5.0, 5.0},
                                    BinLayout{7, -1.3, 2.9}, BinLayout{1000, 100.0, 101.0}}) {
        const BinParams bp = BinParams::from(layout);
        std::vector<float> v;
        for (double e : layout.edges()) {
            const float f = float(e);
            v.push_back(f);
            v.push_back(std::nextafter(f, -1e30f));
            v.push_back(std::nextafter(f, 1e30f));
        }
        while (v.size() % 8)
            v.push_back(float(layout.lo));
        std::vector<std::uint32_t> got(std::size_t(layout.bins) + kExtraSlots);
        std::vector<std::uint32_t> want(got.size());
        bestKernels().histogram(xdl::Dtype::Float, reinterpret_cast<const std::uint8_t*>(v.data()),
                                v.size(), bp, got.data());
        for (float x : v)
            ++want[std::size_t(slotOf(bp, double(x)))];
        EXPECT_EQ(got, want) << "bins " << layout.bins;
    }
}

} // namespace
} // namespace xt::analysis::kernels
