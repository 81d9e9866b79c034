// Internal: kernel bodies, included by cpu_kernels_baseline.cpp and cpu_kernels_avx2.cpp with
// XT_KERNEL_NS naming the namespace of each build. Not a public header.
//
// Statistics are taken in blocks that stay in L1: pass 1 counts and sums, pass 2 sums the
// deviations from the block's provisional mean (corrected two-pass algorithm); blocks are merged
// with Chan's formula. Explicit 4-wide vectors (GCC/Clang vector extensions) with two
// accumulators give 8 fixed summation lanes: vectorised without reassociating anything.

#include "core/analysis/cpu_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

// Only the functions below get the extra target features: inline functions of the headers above
// stay baseline code, so the linker can never pick an AVX2 copy of them for baseline callers.
#if defined(XT_KERNEL_AVX2)
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

namespace xt::analysis::kernels::XT_KERNEL_NS {

using V = double __attribute__((vector_size(32)));
using M = std::int64_t __attribute__((vector_size(32)));
template <class T> struct Vec4Of { typedef T type __attribute__((vector_size(4 * sizeof(T)))); };

constexpr std::size_t kBlock = 2048;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T> inline T load(const std::uint8_t* p, std::size_t i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    return v;
}

// Four elements as doubles, with masks (all ones / zero per lane) of finite and NaN elements.
template <class T> inline void load4(const std::uint8_t* p, V& d, M& fin, M& nan) {
    typename Vec4Of<T>::type raw;
    std::memcpy(&raw, p, sizeof raw);
    d = __builtin_convertvector(raw, V);
    if constexpr (std::is_same_v<T, float>) {
        using U = std::uint32_t __attribute__((vector_size(16)));
        using I = std::int32_t __attribute__((vector_size(16)));
        U bits;
        std::memcpy(&bits, p, sizeof bits);
        const U a = bits & 0x7fffffffu;
        fin = __builtin_convertvector((I)(a < 0x7f800000u), M);
        nan = __builtin_convertvector((I)(a > 0x7f800000u), M);
    } else if constexpr (std::is_same_v<T, double>) {
        using U = std::uint64_t __attribute__((vector_size(32)));
        U bits;
        std::memcpy(&bits, p, sizeof bits);
        const U a = bits & 0x7fffffffffffffffull;
        fin = (M)(a < 0x7ff0000000000000ull);
        nan = (M)(a > 0x7ff0000000000000ull);
    } else {
        fin = M{} - 1;
        nan = M{};
    }
}

inline double hsum(V v) {
    return (v[0] + v[1]) + (v[2] + v[3]);
}

template <class T> StatsAccumulator statsBlock(const std::uint8_t* p, std::size_t n) {
    constexpr bool kFloat = std::is_floating_point_v<T>;
    const V vInf = {kInf, kInf, kInf, kInf};
    V sum0 = {}, sum1 = {}, sq0 = {}, sq1 = {};
    V mn0 = vInf, mn1 = vInf, mx0 = -vInf, mx1 = -vInf;
    M nf = {}, nn = {}, nz = {};
    const std::size_t nv = n - n % 8;
    for (std::size_t i = 0; i < nv; i += 8) {
        V d0, d1;
        M f0, f1, a0, a1;
        load4<T>(p + i * sizeof(T), d0, f0, a0);
        load4<T>(p + (i + 4) * sizeof(T), d1, f1, a1);
        nf -= f0 + f1;
        nn -= a0 + a1;
        nz -= (M)(d0 == 0.0) + (M)(d1 == 0.0);
        const V z0 = f0 ? d0 : V{}, z1 = f1 ? d1 : V{};
        sum0 += z0;
        sum1 += z1;
        sq0 += z0 * z0;
        sq1 += z1 * z1;
        const V l0 = f0 ? d0 : vInf, l1 = f1 ? d1 : vInf;
        const V h0 = f0 ? d0 : -vInf, h1 = f1 ? d1 : -vInf;
        mn0 = l0 < mn0 ? l0 : mn0;
        mn1 = l1 < mn1 ? l1 : mn1;
        mx0 = h0 > mx0 ? h0 : mx0;
        mx1 = h1 > mx1 ? h1 : mx1;
    }
    StatsAccumulator a;
    a.count = n;
    a.finite = std::uint64_t(nf[0] + nf[1] + nf[2] + nf[3]);
    a.nan = std::uint64_t(nn[0] + nn[1] + nn[2] + nn[3]);
    a.zeros = std::uint64_t(nz[0] + nz[1] + nz[2] + nz[3]);
    double s = hsum(sum0) + hsum(sum1);
    a.sumSq = hsum(sq0) + hsum(sq1);
    for (int j = 0; j < 4; ++j) {
        a.min = std::min({a.min, mn0[j], mn1[j]});
        a.max = std::max({a.max, mx0[j], mx1[j]});
    }
    for (std::size_t i = nv; i < n; ++i) {
        const double d = double(load<T>(p, i));
        a.zeros += d == 0.0;
        const bool fin = !kFloat || std::fabs(d) < kInf;
        a.nan += d != d;
        if (!fin) continue;
        ++a.finite;
        s += d;
        a.sumSq += d * d;
        a.min = std::min(a.min, d);
        a.max = std::max(a.max, d);
    }
    a.inf = n - a.finite - a.nan;
    if (!a.finite) return a;
    // Pass 2 over the block (still in cache): deviations from the provisional mean.
    const double m = s / double(a.finite);
    const V vm = {m, m, m, m};
    V c0 = {}, c1 = {}, q0 = {}, q1 = {};
    for (std::size_t i = 0; i < nv; i += 8) {
        V d0, d1;
        M f0, f1, a0, a1;
        load4<T>(p + i * sizeof(T), d0, f0, a0);
        load4<T>(p + (i + 4) * sizeof(T), d1, f1, a1);
        const V e0 = f0 ? d0 - vm : V{}, e1 = f1 ? d1 - vm : V{};
        c0 += e0;
        c1 += e1;
        q0 += e0 * e0;
        q1 += e1 * e1;
    }
    double cs = hsum(c0) + hsum(c1), qs = hsum(q0) + hsum(q1);
    for (std::size_t i = nv; i < n; ++i) {
        const double d = double(load<T>(p, i));
        if (kFloat && !(std::fabs(d) < kInf)) continue;
        cs += d - m;
        qs += (d - m) * (d - m);
    }
    const double nf64 = double(a.finite);
    a.mean = m + cs / nf64;
    a.m2 = std::max(0.0, qs - cs * cs / nf64);
    return a;
}

template <class T> StatsAccumulator statsRange(const std::uint8_t* p, std::size_t n) {
    StatsAccumulator acc;
    for (std::size_t b = 0; b < n; b += kBlock)
        acc.merge(statsBlock<T>(p + b * sizeof(T), std::min(kBlock, n - b)));
    return acc;
}

inline StatsAccumulator stats(xdl::Dtype dtype, const std::uint8_t* p, std::size_t n) {
    return xdl::visitDtype(dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        return statsRange<T>(p, n);
    });
}

// Histogram: a vectorisable pass computes each element's slot into a small buffer (linear bins:
// numpy's index-then-correct rule, see bin_math.h), then a scalar pass counts the slots.
template <class T>
void histogramRange(const std::uint8_t* p, std::size_t n, const BinParams& bp,
                    std::uint64_t* counts) {
    constexpr std::size_t kSlotBlock = 1024;
    std::int32_t slots[kSlotBlock];
    const int bins = bp.bins;
    for (std::size_t b = 0; b < n; b += kSlotBlock) {
        const std::size_t m = std::min(kSlotBlock, n - b);
        const std::uint8_t* q = p + b * sizeof(T);
        if (!bp.symlog) {
            const double lo = bp.lo, hi = bp.hi, ulo = bp.ulo, step = bp.step, norm = bp.norm;
            const double top = double(bins - 1);
            for (std::size_t i = 0; i < m; ++i) {
                const double x = double(load<T>(q, i));
                const bool inRange = x >= lo && x <= hi; // false for NaN
                double f = inRange ? (x - ulo) * norm : 0.0;
                f = f < 0 ? 0 : (f > top ? top : f);
                int k = int(f);
                const bool dec = x < double(k) * step + ulo;
                const bool inc = !dec && k != bins - 1 && x >= double(k + 1) * step + ulo;
                k = k - int(dec && k > 0) + int(inc);
                const int out = x != x   ? bins + kSlotNan
                                : x < lo ? bins + (x == -kInf ? kSlotNegInf : kSlotBelow)
                                         : bins + (x == kInf ? kSlotPosInf : kSlotAbove);
                slots[i] = inRange ? k : out;
            }
        } else {
            for (std::size_t i = 0; i < m; ++i)
                slots[i] = slotOf(bp, double(load<T>(q, i)));
        }
        for (std::size_t i = 0; i < m; ++i)
            ++counts[slots[i]];
    }
}

inline void histogram(xdl::Dtype dtype, const std::uint8_t* p, std::size_t n, const BinParams& bp,
                      std::uint64_t* counts) {
    xdl::visitDtype(dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        histogramRange<T>(p, n, bp, counts);
    });
}

} // namespace xt::analysis::kernels::XT_KERNEL_NS

#if defined(XT_KERNEL_AVX2)
#pragma GCC pop_options
#endif
