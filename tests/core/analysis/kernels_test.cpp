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
#include <type_traits>
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

// A range of one block is returned as its block's accumulator, and a tensor of one chunk as its
// chunk's, finished in the kernel: both are what merging them into an empty accumulator gives,
// bit for bit (every dtype, both builds, all finite, with NaN/Inf, all NaN, zeros of both signs).
TEST(CpuKernels, OneBlockAndFinishedStatsEqualTheirMergeIntoAnEmptyAccumulator) {
    std::vector<const KernelTable*> tables{&baselineKernels()};
    if (avx2Kernels() && __builtin_cpu_supports("avx2")) tables.push_back(avx2Kernels());
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(-2.0, 5.0);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<std::uint8_t> bytes(8 * 5000 + 1);
    for (int fill = 0; fill < 4; ++fill)
        for (int d = 0; d < xdl::kDtypeCount; ++d) {
            const auto dtype = xdl::Dtype(d);
            const std::size_t es = xdl::elementSize(dtype);
            for (std::size_t i = 0; i < 5000; ++i) {
                const double v = fill == 1   ? (i % 5 == 0   ? nan
                                                : i % 7 == 0 ? -inf
                                                             : normal(rng))
                                 : fill == 2 ? nan
                                 : fill == 3 ? (i % 2 ? -0.0 : 0.0)
                                             : normal(rng);
                xdl::visitDtype(dtype, [&](auto t) {
                    using T = typename decltype(t)::type;
                    const T x = std::is_floating_point_v<T> ? T(v)
                                : std::isfinite(v)          ? T(std::int64_t(v) & 1)
                                                            : T(0);
                    std::memcpy(bytes.data() + 1 + i * es, &x, es);
                });
            }
            const std::uint8_t* p = bytes.data() + 1; // unaligned
            for (const KernelTable* k : tables)
                for (std::size_t n : {0, 1, 7, 8, 16, 100, 2047, 2048, 2049, 5000}) {
                    const StatsAccumulator one = k->stats(dtype, p, n);
                    StatsAccumulator merged;
                    merged.merge(one);
                    EXPECT_EQ(std::memcmp(&one, &merged, sizeof one), 0)
                        << k->name << " " << xdl::dtypeName(dtype) << " n " << n;
                    TensorStats finished;
                    k->finishedStats(dtype, p, n, &finished);
                    const TensorStats want = merged.finish();
                    EXPECT_EQ(std::memcmp(&finished, &want, sizeof want), 0)
                        << k->name << " " << xdl::dtypeName(dtype) << " n " << n;
                }
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

// The statistics of float32, replayed one element at a time in the kernels' documented order
// (cpu_kernels_impl.h): blocks of 2048, in each eight lanes (lane j sums elements 8k+j), the
// lanes' sums added as ((0+1)+(2+3)) + ((4+5)+(6+7)), minima and maxima paired lane j with lane
// j+4 before they meet the running one, a scalar tail, then deviations from the block's mean in
// the same lanes. The vector kernels must give these numbers bit for bit, whatever their width.
StatsAccumulator replayFloatStats(const float* x, std::size_t n) {
    const double inf = std::numeric_limits<double>::infinity();
    const auto finite = [](double d) {
        return std::fabs(d) < std::numeric_limits<double>::infinity();
    };
    StatsAccumulator total;
    for (std::size_t b = 0; b < n; b += 2048) {
        const float* p = x + b;
        const std::size_t m = std::min<std::size_t>(2048, n - b), nv = m - m % 8;
        double sum[8] = {}, sq[8] = {}, mn[4] = {inf, inf, inf, inf},
               mx[4] = {-inf, -inf, -inf, -inf};
        StatsAccumulator a;
        a.count = m;
        for (std::size_t i = 0; i < nv; i += 8)
            for (int j = 0; j < 4; ++j) {
                const double d0 = p[i + j], d1 = p[i + 4 + j];
                const double z0 = finite(d0) ? d0 : 0.0, z1 = finite(d1) ? d1 : 0.0;
                a.finite += finite(d0) + finite(d1);
                a.zeros += (d0 == 0.0) + (d1 == 0.0);
                sum[j] += z0, sum[4 + j] += z1;
                sq[j] += z0 * z0, sq[4 + j] += z1 * z1;
                const double l0 = finite(d0) ? d0 : inf, l1 = finite(d1) ? d1 : inf;
                const double h0 = finite(d0) ? d0 : -inf, h1 = finite(d1) ? d1 : -inf;
                const double l = l0 < l1 ? l0 : l1, h = h0 > h1 ? h0 : h1;
                mn[j] = l < mn[j] ? l : mn[j];
                mx[j] = h > mx[j] ? h : mx[j];
            }
        for (std::size_t i = 0; i < nv; ++i)
            a.nan += p[i] != p[i];
        double s =
            ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
        a.sumSq = ((sq[0] + sq[1]) + (sq[2] + sq[3])) + ((sq[4] + sq[5]) + (sq[6] + sq[7]));
        for (int j = 0; j < 4; ++j) {
            a.min = std::min(a.min, mn[j]);
            a.max = std::max(a.max, mx[j]);
        }
        for (std::size_t i = nv; i < m; ++i) {
            const double d = p[i];
            a.zeros += d == 0.0;
            a.nan += d != d;
            if (!finite(d)) continue;
            ++a.finite;
            s += d;
            a.sumSq += d * d;
            a.min = std::min(a.min, d);
            a.max = std::max(a.max, d);
        }
        a.inf = m - a.finite - a.nan;
        if (a.finite) {
            const double mean = s / double(a.finite);
            double c[8] = {}, q[8] = {};
            for (std::size_t i = 0; i < nv; i += 8)
                for (int j = 0; j < 8; ++j) {
                    const double d = p[i + j];
                    const double e = finite(d) ? d - mean : 0.0;
                    c[j] += e, q[j] += e * e;
                }
            double cs = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
            double qs = ((q[0] + q[1]) + (q[2] + q[3])) + ((q[4] + q[5]) + (q[6] + q[7]));
            for (std::size_t i = nv; i < m; ++i) {
                const double d = p[i];
                if (!finite(d)) continue;
                cs += d - mean;
                qs += (d - mean) * (d - mean);
            }
            a.mean = mean + cs / double(a.finite);
            a.m2 = std::max(0.0, qs - cs * cs / double(a.finite));
        }
        total.merge(a);
    }
    return total;
}

TEST(CpuKernels, Float32StatsFollowTheDocumentedOrderBitForBit) {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> normal(1e4, 3.0); // a large mean: the two passes matter
    const float specials[] = {0.0f,
                              -0.0f,
                              std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::denorm_min(),
                              -std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::max()};
    const KernelTable* avx2 = avx2Kernels();
    const bool haveAvx2 = avx2 && __builtin_cpu_supports("avx2");
    for (std::size_t n :
         {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(8), std::size_t(13),
          std::size_t(2048), std::size_t(2049), std::size_t(3 * 2048 + 5), std::size_t(50001)})
        for (int variant = 0; variant < 4; ++variant) {
            // 0: all finite; 1: a few specials; 2: mostly specials; 3: zeros of both signs only
            std::vector<float> x(n + 1);
            float* v = x.data() + 1; // unaligned for 32-byte vectors
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint64_t r = rng();
                v[i] = variant == 3                  ? (r & 1 ? 0.0f : -0.0f)
                       : variant == 1 && r % 53 == 0 ? specials[(r >> 8) % 8]
                       : variant == 2 && r % 4 != 0  ? specials[(r >> 8) % 8]
                                                     : float(normal(rng));
            }
            const auto* p = reinterpret_cast<const std::uint8_t*>(v);
            const StatsAccumulator want = replayFloatStats(v, n);
            const StatsAccumulator base = baselineKernels().stats(xdl::Dtype::Float, p, n);
            EXPECT_EQ(std::memcmp(&want, &base, sizeof want), 0)
                << "n " << n << " variant " << variant;
            if (haveAvx2) {
                const StatsAccumulator fast = avx2->stats(xdl::Dtype::Float, p, n);
                EXPECT_EQ(std::memcmp(&want, &fast, sizeof want), 0)
                    << "AVX2, n " << n << " variant " << variant;
            }
        }
}

// Eight float32 tensors at a time are finishedStats of each, bit for bit, in both builds: sizes
// of one to four vectors, large means, zeros of both signs, denormals, extremes; tensors with a
// NaN or an infinity are left undone, and so is every size the kernel does not take.
TEST(CpuKernels, EightFloatTensorsAtOnceAreEachOnesFinishedStats) {
    std::vector<const KernelTable*> tables{&baselineKernels()};
    if (avx2Kernels() && __builtin_cpu_supports("avx2")) tables.push_back(avx2Kernels());
    std::mt19937_64 rng(5);
    std::normal_distribution<double> normal(1e4, 3.0);
    const float specials[] = {0.0f,
                              -0.0f,
                              std::numeric_limits<float>::denorm_min(),
                              -std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity()};
    for (std::size_t n : {8, 16, 24, 32, 7, 40}) {
        const bool taken = n % 8 == 0 && n <= 32;
        for (int variant = 0; variant < 4; ++variant) {
            // 0: finite; 1: finite specials among them; 2: NaN/Inf in tensors 2 and 5;
            // 3: zeros of both signs only
            std::vector<float> x(8 * (n + 3) + 1);
            const std::uint8_t* p[8];
            for (std::size_t r = 0; r < 8; ++r) {
                float* v = x.data() + 1 + r * (n + 3); // unaligned, apart
                for (std::size_t i = 0; i < n; ++i) {
                    const std::uint64_t u = rng();
                    const bool special = variant == 1   ? u % 3 == 0
                                         : variant == 2 ? (r == 2 || r == 5) && i == n / 2
                                                        : false;
                    v[i] = variant == 3 ? (u & 1 ? 0.0f : -0.0f)
                           : special    ? specials[variant == 1 ? (u >> 8) % 5 : 5 + (r == 5)]
                                        : float(normal(rng) * (r + 1));
                }
                p[r] = reinterpret_cast<const std::uint8_t*>(v);
            }
            for (const KernelTable* k : tables) {
                TensorStats got[8], *to[8];
                std::memset(got, 0xA5, sizeof got);
                for (int r = 0; r < 8; ++r)
                    to[r] = &got[r];
                const unsigned undone = k->finishedFloatStats8(p, n, to);
                const unsigned want = !taken ? 0xffu : variant == 2 ? 0x24u : 0u;
                EXPECT_EQ(undone, want) << k->name << " n " << n << " variant " << variant;
                for (int r = 0; r < 8; ++r) {
                    if (undone >> r & 1) continue;
                    TensorStats one;
                    k->finishedStats(xdl::Dtype::Float, p[r], n, &one);
                    EXPECT_EQ(std::memcmp(&got[r], &one, sizeof one), 0)
                        << k->name << " n " << n << " variant " << variant << " tensor " << r;
                }
            }
        }
    }
}

// Many small tensors of mixed sizes and dtypes, in an order that leaves groups part-filled: the
// statistics of each are tensorStats's, bit for bit.
TEST(TensorKernels, SmallTensorStatsEqualTensorStats) {
    std::mt19937_64 rng(9);
    std::normal_distribution<double> normal(-3.0, 40.0);
    const std::size_t sizes[] = {16, 8, 16, 0, 1, 32, 24, 16, 7, 64, 2048};
    std::vector<std::vector<std::uint8_t>> storage;
    std::vector<SmallTensor> tensors;
    std::vector<xdl::TensorView> views;
    for (int i = 0; i < 300; ++i) {
        const std::size_t n = sizes[rng() % std::size(sizes)];
        const auto dtype = i % 11 == 3 ? xdl::Dtype::Double : xdl::Dtype::Float;
        const std::size_t es = xdl::elementSize(dtype);
        auto& bytes = storage.emplace_back(n * es + 1);
        for (std::size_t e = 0; e < n; ++e) {
            const double v =
                i % 17 == 0 && e == 0 ? std::numeric_limits<double>::quiet_NaN() : normal(rng);
            if (dtype == xdl::Dtype::Float) {
                const float f = float(v);
                std::memcpy(bytes.data() + 1 + e * 4, &f, 4);
            } else {
                std::memcpy(bytes.data() + 1 + e * 8, &v, 8);
            }
        }
        tensors.push_back({dtype, bytes.data() + 1, n});
        xdl::Shape shape;
        shape.rank = 1;
        shape.dims[0] = std::int64_t(n);
        views.emplace_back(dtype, shape, xdl::Bytes(bytes.data() + 1, n * es));
    }
    std::vector<TensorStats> got(tensors.size());
    smallTensorStats(tensors, got.data());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const TensorStats want = tensorStats(views[i]);
        EXPECT_EQ(std::memcmp(&got[i], &want, sizeof want), 0)
            << "tensor " << i << " of " << tensors[i].elements;
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
