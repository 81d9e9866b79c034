// The baseline and AVX2 builds of the CPU kernels give bit-identical results.
#include "core/analysis/cpu_backend.h"
#include "core/analysis/cpu_kernels.h"
#include "core/analysis/tensor_kernels.h"

#include <algorithm>
#include <cmath>
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

// Vectors of eight equal float32 values a few ulps around each edge: each vector takes the
// single-precision path as a whole, so the test reaches the rule that trusts the float estimate
// away from a boundary without the edge table, as well as the corrected path near it.
TEST(CpuKernels, Float32NearEdgesInWholeVectorsMatchesScalarRule) {
    for (const BinLayout& layout :
         {BinLayout{4096, -5.0, 5.0}, BinLayout{1000, 100.0, 101.0}, BinLayout{65536, -3.0, 1e4},
          BinLayout{3, 1e-3, 2e-3}, BinLayout{777, 123.456, 124.987}, BinLayout{333, -0.1, 0.3}}) {
        const BinParams bp = BinParams::from(layout);
        std::vector<float> v;
        const auto edges = layout.edges();
        const std::size_t every = std::max<std::size_t>(1, edges.size() / 1500);
        for (std::size_t k = 0; k < edges.size(); k += every)
            for (int d = -48; d <= 48; d += (d > -4 && d < 4) ? 1 : 5) {
                float x = float(edges[k]);
                for (int i = 0; i < std::abs(d); ++i)
                    x = std::nextafter(x, d < 0 ? -1e30f : 1e30f);
                v.insert(v.end(), 8, x);
            }
        std::vector<std::uint32_t> got(std::size_t(layout.bins) + kExtraSlots);
        std::vector<std::uint32_t> want(got.size());
        bestKernels().histogram(xdl::Dtype::Float, reinterpret_cast<const std::uint8_t*>(v.data()),
                                v.size(), bp, got.data());
        for (float x : v)
            ++want[std::size_t(slotOf(bp, double(x)))];
        EXPECT_EQ(got, want) << "bins " << layout.bins << " on [" << layout.lo << ", " << layout.hi
                             << "]";
    }
}

// The serial per-tensor statistics (summaries, the recorder) are the CPU backend's, bit for bit:
// tensors of several chunks, with the backend on 1 and 3 threads.
TEST(TensorKernels, SerialStatsEqualTheCpuBackend) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(-2.0, 30.0);
    const std::size_t sizes[] = {0, 1, 2047, kStatsChunk, 2 * kStatsChunk + 12345};
    std::vector<std::vector<std::uint8_t>> storage;
    std::vector<xdl::TensorView> views;
    for (int d = 0; d < xdl::kDtypeCount; ++d) {
        const auto dtype = xdl::Dtype(d);
        for (std::size_t n : sizes) {
            const std::size_t es = xdl::elementSize(dtype);
            auto& bytes = storage.emplace_back(n * es + 1);
            for (std::size_t i = 0; i < n; ++i) {
                const double v = i % 1009 == 0  ? std::numeric_limits<double>::quiet_NaN()
                                 : i % 997 == 0 ? -std::numeric_limits<double>::infinity()
                                                : normal(rng);
                std::uint8_t* p = bytes.data() + 1 + i * es;
                xdl::visitDtype(dtype, [&](auto t) {
                    using T = typename decltype(t)::type;
                    T x;
                    if constexpr (std::is_floating_point_v<T>)
                        x = T(v);
                    else if (dtype == xdl::Dtype::Bool)
                        x = T(rng() & 1);
                    else
                        x = T(rng());
                    std::memcpy(p, &x, sizeof x);
                });
            }
            xdl::Shape shape;
            shape.rank = 1;
            shape.dims[0] = std::int64_t(n);
            views.emplace_back(dtype, shape, xdl::Bytes(bytes.data() + 1, n * es));
        }
    }
    for (int threads : {1, 3}) {
        CpuBackend cpu(threads);
        std::vector<TensorStats> got(views.size());
        ASSERT_TRUE(cpu.computeStats(views, got).isOk());
        for (std::size_t i = 0; i < views.size(); ++i) {
            const TensorStats want = tensorStats(views[i]);
            EXPECT_EQ(std::memcmp(&got[i], &want, sizeof want), 0)
                << xdl::dtypeName(views[i].dtype()) << " n=" << views[i].size();
        }
    }
    // Histogram slot counts of a multi-chunk tensor equal the backend's histogram.
    const xdl::TensorView& big = views[5 * std::size_t(xdl::Dtype::Float) + 4]; // the largest
    ASSERT_EQ(big.size(), 2 * kStatsChunk + 12345);
    CpuBackend cpu(2);
    const BinLayout layout{33, -50.0, 40.0};
    std::vector<Histogram> h(1, Histogram(layout));
    ASSERT_TRUE(cpu.histogram(std::span(&big, 1), layout, h).isOk());
    Histogram serial(layout);
    histogramSerial(big, serial);
    EXPECT_EQ(serial.counts, h[0].counts);
    EXPECT_EQ(serial.nan, h[0].nan);
    EXPECT_EQ(serial.negInf, h[0].negInf);
    EXPECT_EQ(serial.below + serial.above, h[0].below + h[0].above);
}

} // namespace
} // namespace xt::analysis::kernels
