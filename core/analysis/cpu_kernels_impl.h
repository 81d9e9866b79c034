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
#include <vector>
#if defined(XT_KERNEL_AVX2)
#include <immintrin.h>
#endif

// Only the functions below get the extra target features: inline functions of the headers above
// stay baseline code, so the linker can never pick an AVX2 copy of them for baseline callers.
#if defined(XT_KERNEL_AVX2) && defined(__clang__) // the fuzz preset's compiler
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#elif defined(XT_KERNEL_AVX2)
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

// Four elements as doubles.
template <class T> inline V load4(const std::uint8_t* p) {
    typename Vec4Of<T>::type raw;
    std::memcpy(&raw, p, sizeof raw);
    return __builtin_convertvector(raw, V);
}

// Lane masks (all ones / zero) of finite elements: |d| < inf, false for NaN.
template <class T> inline M finiteMask(V d) {
    if constexpr (std::is_floating_point_v<T>) {
        const V absd = (V)((M)d & 0x7fffffffffffffffll);
        return (M)(absd < kInf);
    } else {
        (void)d;
        return M{} - 1;
    }
}

inline double hsum(V v) {
    return (v[0] + v[1]) + (v[2] + v[3]);
}

// float32: what pass 1 compares and counts, it does on the 8 floats in one vector (exact: a float
// converts to double without rounding, and compares the same), and it converts to double only
// what it sums. The lanes and the order of every operation are those of the generic loop.
using F8 = float __attribute__((vector_size(32)));
using F4 = float __attribute__((vector_size(16)));
using I8 = std::int32_t __attribute__((vector_size(32)));

// Pass 1 over the nv (a multiple of 8) float32 at p, into the generic loop's accumulators.
inline void floatPass1(const std::uint8_t* p, std::size_t nv, V& sum0, V& sum1, V& sq0, V& sq1,
                       V& mn, V& mx, M& nf, M& nz) {
    const float inf = std::numeric_limits<float>::infinity();
    const F8 fInf = {inf, inf, inf, inf, inf, inf, inf, inf};
    F4 lo = {inf, inf, inf, inf}, hi = -lo;
    I8 finite = {}, zeros = {};
    for (std::size_t i = 0; i < nv; i += 8) {
        F8 d;
        std::memcpy(&d, p + i * 4, sizeof d);
        const I8 f = (I8)((F8)((I8)d & 0x7fffffff) < fInf); // finite: |d| < inf, not NaN
        finite -= f;
        zeros -= (I8)(d == 0.0f);
        const F8 z = (F8)((I8)d & f); // 0 where not finite
        const V z0 = __builtin_convertvector(__builtin_shufflevector(z, z, 0, 1, 2, 3), V);
        const V z1 = __builtin_convertvector(__builtin_shufflevector(z, z, 4, 5, 6, 7), V);
        sum0 += z0;
        sum1 += z1;
        sq0 += z0 * z0;
        sq1 += z1 * z1;
        const F8 l8 = f ? d : fInf, h8 = f ? d : -fInf;
        const F4 l0 = __builtin_shufflevector(l8, l8, 0, 1, 2, 3);
        const F4 l1 = __builtin_shufflevector(l8, l8, 4, 5, 6, 7);
        const F4 h0 = __builtin_shufflevector(h8, h8, 0, 1, 2, 3);
        const F4 h1 = __builtin_shufflevector(h8, h8, 4, 5, 6, 7);
        const F4 l = l0 < l1 ? l0 : l1, h = h0 > h1 ? h0 : h1;
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    mn = __builtin_convertvector(lo, V);
    mx = __builtin_convertvector(hi, V);
    for (int j = 0; j < 4; ++j) {
        nf[j] = std::int64_t(finite[j]) + finite[j + 4];
        nz[j] = std::int64_t(zeros[j]) + zeros[j + 4];
    }
}

// Inlined into its callers: its accumulator stays in registers (finishedStats).
template <class T>
[[gnu::always_inline]] inline StatsAccumulator statsBlock(const std::uint8_t* p, std::size_t n) {
    constexpr bool kFloat = std::is_floating_point_v<T>;
    const V vInf = {kInf, kInf, kInf, kInf};
    V sum0 = {}, sum1 = {}, sq0 = {}, sq1 = {};
    V mn = vInf, mx = -vInf;
    M nf = {}, nz = {};
    const std::size_t nv = n - n % 8;
    if constexpr (std::is_same_v<T, float>) {
        floatPass1(p, nv, sum0, sum1, sq0, sq1, mn, mx, nf, nz);
    } else {
        for (std::size_t i = 0; i < nv; i += 8) {
            const V d0 = load4<T>(p + i * sizeof(T)), d1 = load4<T>(p + (i + 4) * sizeof(T));
            const M f0 = finiteMask<T>(d0), f1 = finiteMask<T>(d1);
            nf -= f0 + f1;
            nz -= (M)(d0 == 0.0) + (M)(d1 == 0.0);
            const V z0 = (V)((M)d0 & f0), z1 = (V)((M)d1 & f1); // 0.0 where not finite
            sum0 += z0;
            sum1 += z1;
            sq0 += z0 * z0;
            sq1 += z1 * z1;
            const V l0 = f0 ? d0 : vInf, l1 = f1 ? d1 : vInf;
            const V h0 = f0 ? d0 : -vInf, h1 = f1 ? d1 : -vInf;
            const V l = l0 < l1 ? l0 : l1, h = h0 > h1 ? h0 : h1;
            mn = l < mn ? l : mn;
            mx = h > mx ? h : mx;
        }
    }
    StatsAccumulator a;
    a.count = n;
    a.finite = std::uint64_t(nf[0] + nf[1] + nf[2] + nf[3]);
    if (kFloat && a.finite != nv) // NaNs are counted only in blocks that have non-finite values
        for (std::size_t i = 0; i < nv; ++i) {
            const T v = load<T>(p, i);
            a.nan += v != v;
        }
    a.zeros = std::uint64_t(nz[0] + nz[1] + nz[2] + nz[3]);
    double s = hsum(sum0) + hsum(sum1);
    a.sumSq = hsum(sq0) + hsum(sq1);
    for (int j = 0; j < 4; ++j) {
        a.min = std::min(a.min, mn[j]);
        a.max = std::max(a.max, mx[j]);
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
    // Where every element is finite (the usual block), the masks would keep every lane.
    const auto pass2 = [&](auto masked) {
        for (std::size_t i = 0; i < nv; i += 8) {
            const V d0 = load4<T>(p + i * sizeof(T)), d1 = load4<T>(p + (i + 4) * sizeof(T));
            V e0 = d0 - vm, e1 = d1 - vm;
            if constexpr (decltype(masked)::value) {
                e0 = (V)((M)e0 & finiteMask<T>(d0));
                e1 = (V)((M)e1 & finiteMask<T>(d1));
            }
            c0 += e0;
            c1 += e1;
            q0 += e0 * e0;
            q1 += e1 * e1;
        }
    };
    if (a.finite == n)
        pass2(std::false_type{});
    else
        pass2(std::true_type{});
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
    // One block is its own merge into the empty accumulator, bit for bit. Returned as it is, its
    // fields are not read back at once through a wider load than they were stored with (a store
    // the load cannot take its bytes from waits for everything before it: small rows ran
    // one after the other instead of overlapping).
    if (n <= kBlock) return statsBlock<T>(p, n);
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

inline void finishedStats(xdl::Dtype dtype, const std::uint8_t* p, std::size_t n,
                          TensorStats* out) {
    xdl::visitDtype(dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        // statsRange's one-block case, spelled out: statsRange itself is not inlined here.
        *out = n <= kBlock ? statsBlock<T>(p, n).finish() : statsRange<T>(p, n).finish();
    });
}

// Statistics of 8 float32 tensors of N elements each (N a multiple of 8): finishedStats of each,
// bit for bit, at a fraction of the instructions for small N. An 8x8 transpose puts element k of
// the 8 tensors in one vector; every tensor's sums keep statsBlock's lanes (element k adds into
// lane k % 8) and order, and the divisions and square roots take 4 tensors at once. Tensors with a
// non-finite element are left to finishedStats: bit r of the result set = *out[r] not written.
template <std::size_t N>
unsigned floatStats8(const std::uint8_t* const* p, TensorStats* const* out) {
    static_assert(N % 8 == 0 && N > 0);
    const float inf = std::numeric_limits<float>::infinity();
    const F8 fInf = {inf, inf, inf, inf, inf, inf, inf, inf};
    F8 t[N]; // t[k][r]: element k of tensor r
    I8 finite = {}, zeros = {};
    F8 lo[4] = {fInf, fInf, fInf, fInf}, hi[4] = {-fInf, -fInf, -fInf, -fInf};
    for (std::size_t i = 0; i < N; i += 8) {
        F8 r[8], a[8], b[8];
        for (int k = 0; k < 8; ++k)
            std::memcpy(&r[k], p[k] + i * sizeof(float), sizeof(F8));
        for (int k = 0; k < 8; k += 2) {
            a[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
            a[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
        }
        for (int k = 0; k < 8; k += 4) { // elements (0 | 4, 1 | 5, 2 | 6, 3 | 7) of 4 tensors
            b[k] = __builtin_shufflevector(a[k], a[k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            b[k + 1] = __builtin_shufflevector(a[k], a[k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
            b[k + 2] = __builtin_shufflevector(a[k + 1], a[k + 3], 0, 1, 8, 9, 4, 5, 12, 13);
            b[k + 3] = __builtin_shufflevector(a[k + 1], a[k + 3], 2, 3, 10, 11, 6, 7, 14, 15);
        }
        F8* e = t + i;
        for (int k = 0; k < 4; ++k) {
            e[k] = __builtin_shufflevector(b[k], b[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
            e[k + 4] = __builtin_shufflevector(b[k], b[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
        }
        for (int j = 0; j < 8; ++j) {
            finite -= (I8)((F8)((I8)e[j] & 0x7fffffff) < fInf);
            zeros -= (I8)(e[j] == 0.0f);
        }
        for (int j = 0; j < 4; ++j) { // floatPass1's lanes, where every element is finite
            const F8 l = e[j] < e[j + 4] ? e[j] : e[j + 4];
            const F8 h = e[j] > e[j + 4] ? e[j] : e[j + 4];
            lo[j] = l < lo[j] ? l : lo[j];
            hi[j] = h > hi[j] ? h : hi[j];
        }
    }
    unsigned undone = 0;
    for (int r = 0; r < 8; ++r)
        undone |= unsigned(std::uint32_t(finite[r]) != N) << r;
    if (undone == 0xff) return undone;
    F8 mn = fInf, mx = -fInf; // statsBlock's std::min / std::max over the 4 lanes, in order
    for (int j = 0; j < 4; ++j) {
        mn = lo[j] < mn ? lo[j] : mn;
        mx = hi[j] > mx ? hi[j] : mx;
    }
    const V vn = {double(N), double(N), double(N), double(N)};
    const auto lanes = [](const V* v) {
        return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    };
    for (int h = 0; h < 2; ++h) { // tensors 4h .. 4h + 3
        const auto element = [&](std::size_t k) {
            typename Vec4Of<float>::type raw;
            std::memcpy(&raw, reinterpret_cast<const float*>(t + k) + 4 * h, sizeof raw);
            return __builtin_convertvector(raw, V);
        };
        V s[8] = {}, q[8] = {};
        for (std::size_t i = 0; i < N; i += 8)
            for (int j = 0; j < 8; ++j) {
                const V d = element(i + j);
                s[j] += d;
                q[j] += d * d;
            }
        const V sumSq = lanes(q), m = lanes(s) / vn;
        V c[8] = {}, d2[8] = {};
        for (std::size_t i = 0; i < N; i += 8)
            for (int j = 0; j < 8; ++j) {
                const V dev = element(i + j) - m;
                c[j] += dev;
                d2[j] += dev * dev;
            }
        const V cs = lanes(c), qs = lanes(d2);
        const V mean = m + cs / vn;
        V m2 = qs - cs * cs / vn;
        m2 = m2 > 0.0 ? m2 : V{}; // std::max(0.0, m2): 0 for NaN and -0
        const V var = m2 > 0.0 ? m2 / vn : V{};
        for (int k = 0; k < 4; ++k) {
            const int r = 4 * h + k;
            if (undone >> r & 1) continue;
            TensorStats& o = *out[r];
            o.count = o.finite = N;
            o.nan = o.inf = 0;
            o.zeros = std::uint32_t(zeros[r]);
            o.min = mn[r];
            o.max = mx[r];
            o.mean = mean[k];
            o.std = std::sqrt(var[k]);
            o.l2 = std::sqrt(sumSq[k]);
        }
    }
    return undone;
}

inline unsigned finishedFloatStats8(const std::uint8_t* const* p, std::size_t n,
                                    TensorStats* const* out) {
    switch (n) {
    case 8:
        return floatStats8<8>(p, out);
    case 16:
        return floatStats8<16>(p, out);
    case 24:
        return floatStats8<24>(p, out);
    case 32:
        return floatStats8<32>(p, out);
    default:
        return 0xff;
    }
}

// Histogram: a vectorised pass computes each element's slot into a small buffer (linear bins:
// numpy's index-then-correct rule, see bin_math.h), then a scalar pass counts the slots.
using I4 = std::int32_t __attribute__((vector_size(16)));

// Counts slots. With few bins, neighbouring elements often share a bin, and each increment waits
// for the previous one's store: interleaved tables, summed at the end, break that chain. Eight
// for up to 256 bins (the summaries' 32-bin sketch: 338 against 375-392 us per MiB with four),
// four up to 1024; many bins seldom repeat, and more tables would crowd the L1 cache: those
// keep one.
class SlotCounter {
public:
    static constexpr int kInterleaveMaxBins = 1024;
    static constexpr int kEightMaxBins = 256;
    SlotCounter(std::uint32_t* counts, int bins)
        : m_counts(counts), m_slots(std::size_t(bins) + kExtraSlots),
          m_tables(bins <= kEightMaxBins        ? 8
                   : bins <= kInterleaveMaxBins ? 4
                                                : 1) {
        m_more.assign((m_tables - 1) * m_slots, 0);
    }
    void add(const std::int32_t* slots, std::size_t m) {
        std::size_t i = m_tables == 8   ? addInterleaved<8>(slots, m)
                        : m_tables == 4 ? addInterleaved<4>(slots, m)
                                        : 0;
        for (; i < m; ++i)
            ++m_counts[slots[i]];
    }
    ~SlotCounter() {
        for (std::size_t t = 0; t + 1 < m_tables; ++t)
            for (std::size_t s = 0; s < m_slots; ++s)
                m_counts[s] += m_more[t * m_slots + s];
    }
    SlotCounter(const SlotCounter&) = delete;
    SlotCounter& operator=(const SlotCounter&) = delete;

private:
    // Counts the slots of whole groups of kTables, element t of each in table t (table 0 is
    // m_counts); returns how many it counted.
    template <std::size_t kTables>
    std::size_t addInterleaved(const std::int32_t* slots, std::size_t m) {
        std::uint32_t *counts = m_counts, *more = m_more.data();
        const std::size_t n = m_slots;
        std::size_t i = 0;
        for (; i + kTables <= m; i += kTables) {
            ++counts[slots[i]];
            for (std::size_t t = 1; t < kTables; ++t)
                ++more[(t - 1) * n + std::size_t(slots[i + t])];
        }
        return i;
    }

    std::uint32_t* m_counts;
    std::size_t m_slots;
    std::size_t m_tables;
    std::vector<std::uint32_t> m_more; // tables 1.. when interleaved
};

template <class T>
void histogramRange(const std::uint8_t* p, std::size_t n, const BinParams& bp,
                    std::uint32_t* counts) {
    constexpr std::size_t kSlotBlock = 1024;
    alignas(32) std::int32_t slots[kSlotBlock];
    const int bins = bp.bins;
    SlotCounter counter(counts, bins);
    const V lo = V{} + bp.lo, hi = V{} + bp.hi, ulo = V{} + bp.ulo, step = V{} + bp.step;
    const V norm = V{} + bp.norm, top = V{} + double(bins - 1), vInf = V{} + kInf;
    // Slots are computed as doubles (exact small integers) so every select is a 64-bit blend.
    const V sNan = V{} + double(bins + kSlotNan), sPos = V{} + double(bins + kSlotPosInf);
    const V sNeg = V{} + double(bins + kSlotNegInf), sBelow = V{} + double(bins + kSlotBelow);
    const V sAbove = V{} + double(bins + kSlotAbove);
    for (std::size_t b = 0; b < n; b += kSlotBlock) {
        const std::size_t m = std::min(kSlotBlock, n - b);
        const std::uint8_t* q = p + b * sizeof(T);
        const std::size_t mv = bp.symlog ? 0 : m - m % 4;
        for (std::size_t i = 0; i < mv; i += 4) {
            const V x = load4<T>(q + i * sizeof(T));
            const M inRange = (M)(x >= lo) & (M)(x <= hi); // false for NaN
            V f = (V)((M)((x - ulo) * norm) & inRange);
            f = f < 0.0 ? V{} : f;
            f = f > top ? top : f;
            V k = __builtin_convertvector(__builtin_convertvector(f, I4), V); // trunc
            const M dec = (M)(x < k * step + ulo);
            const M inc = ~dec & (M)(k != top) & (M)(x >= (k + 1.0) * step + ulo);
            k = (dec & (M)(k > 0.0)) ? k - 1.0 : k; // the edge is above x
            k = inc ? k + 1.0 : k;                  // the next edge is not above x
            V slotD = k;
            const M both = inRange & __builtin_shufflevector(inRange, inRange, 2, 3, 0, 1);
            if ((both[0] & both[1]) != -1) { // some lane is outside [lo, hi]: rare in use
                const V outside =
                    x != x ? sNan
                           : (x < lo ? (x == -vInf ? sNeg : sBelow) : (x == vInf ? sPos : sAbove));
                slotD = inRange ? k : outside;
            }
            const I4 slot = __builtin_convertvector(slotD, I4);
            std::memcpy(slots + i, &slot, sizeof slot);
        }
        for (std::size_t i = mv; i < m; ++i)
            slots[i] = slotOf(bp, double(load<T>(q, i)));
        counter.add(slots, m);
    }
}

#if defined(XT_KERNEL_AVX2)
// float32 on linear bins, 8 lanes at a time in single precision, still exact: a float x is >= a
// double edge e exactly when x >= the smallest float >= e, so the corrections compare against a
// table of such float edges (gathered). The float estimate of the bin is within one of the
// true bin when the range is not tiny compared with its magnitude (checked by the caller);
// blocks with a lane outside [lo, hi] take the double path. Most vectors need no gather: when
// every lane's estimate is further from a bin boundary than its error bound (floatBinError),
// its integer part is the bin.
inline bool floatEdgesUsable(const BinParams& bp) {
    const double err = (std::fabs(bp.lo) + std::fabs(bp.hi)) * bp.norm * 0x1p-21 + 0x1p-10;
    return !bp.symlog && err < 0.25 && bp.bins < (1 << 24);
}

// A bound, in bins, on |the float estimate (x - lo) * norm - the exact one| plus the distance
// between the double edges and the exact multiples of the bin width: the rounding of lo and norm
// to float, of the subtraction and of the product (<= bins, relative 2^-24 each), and a margin.
inline float floatBinError(const BinParams& bp) {
    return float((std::fabs(bp.lo) + std::fabs(bp.hi)) * bp.norm * 0x1p-21 +
                 double(bp.bins) * 0x1p-21 + 0x1p-20);
}

inline float floatAtOrAbove(double e) {
    float f = float(e);
    if (double(f) < e) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

inline float floatAtOrBelow(double e) {
    float f = float(e);
    if (double(f) > e) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
}

inline void histogramFloatFast(const std::uint8_t* p, std::size_t n, const BinParams& bp,
                               std::uint32_t* counts) {
    const int bins = bp.bins;
    std::vector<float> fe(std::size_t(bins) + 1);
    for (int k = 0; k < bins; ++k)
        fe[std::size_t(k)] = floatAtOrAbove(double(k) * bp.step + bp.ulo);
    fe[std::size_t(bins)] = std::numeric_limits<float>::infinity(); // never decisive
    const __m256 lo = _mm256_set1_ps(fe[0]), hi = _mm256_set1_ps(floatAtOrBelow(bp.hi));
    const __m256 lof = _mm256_set1_ps(float(bp.lo)), normf = _mm256_set1_ps(float(bp.norm));
    const __m256 top = _mm256_set1_ps(float(bins - 1)), zero = _mm256_setzero_ps();
    const __m256i last = _mm256_set1_epi32(bins - 1), zeroi = _mm256_setzero_si256();
    const float err = floatBinError(bp);
    const __m256 safeLo = _mm256_set1_ps(err), safeHi = _mm256_set1_ps(1.0f - err);
    constexpr std::size_t kSlotBlock = 1024;
    alignas(32) std::int32_t slots[kSlotBlock];
    SlotCounter counter(counts, bins);
    for (std::size_t b = 0; b < n; b += kSlotBlock) {
        const std::size_t m = std::min(kSlotBlock, n - b);
        const std::uint8_t* q = p + b * 4;
        const std::size_t mv = m - m % 8;
        for (std::size_t i = 0; i < mv; i += 8) {
            const __m256 x = _mm256_loadu_ps(reinterpret_cast<const float*>(q + i * 4));
            const __m256 in =
                _mm256_and_ps(_mm256_cmp_ps(x, lo, _CMP_GE_OQ), _mm256_cmp_ps(x, hi, _CMP_LE_OQ));
            if (_mm256_movemask_ps(in) != 0xff) {
                for (std::size_t j = i; j < i + 8; ++j)
                    slots[j] = slotOf(bp, double(load<float>(q, j)));
                continue;
            }
            __m256 f = _mm256_mul_ps(_mm256_sub_ps(x, lof), normf);
            f = _mm256_min_ps(_mm256_max_ps(f, zero), top);
            __m256i k = _mm256_cvttps_epi32(f);
            const __m256 frac = _mm256_sub_ps(f, _mm256_cvtepi32_ps(k)); // exact: f < 2^24
            const __m256 clear = _mm256_and_ps(_mm256_cmp_ps(frac, safeLo, _CMP_GT_OQ),
                                               _mm256_cmp_ps(frac, safeHi, _CMP_LT_OQ));
            if (_mm256_movemask_ps(clear) == 0xff) {
                _mm256_store_si256(reinterpret_cast<__m256i*>(slots + i), k);
                continue;
            }
            const __m256 e0 = _mm256_i32gather_ps(fe.data(), k, 4);
            const __m256 e1 = _mm256_i32gather_ps(fe.data() + 1, k, 4);
            const __m256i below = _mm256_castps_si256(_mm256_cmp_ps(x, e0, _CMP_LT_OQ));
            const __m256i notBelowNext = _mm256_castps_si256(_mm256_cmp_ps(x, e1, _CMP_GE_OQ));
            const __m256i dec = _mm256_and_si256(below, _mm256_cmpgt_epi32(k, zeroi));
            const __m256i inc = _mm256_andnot_si256(
                _mm256_or_si256(below, _mm256_cmpeq_epi32(k, last)), notBelowNext);
            k = _mm256_sub_epi32(_mm256_add_epi32(k, dec), inc); // masks are -1
            _mm256_store_si256(reinterpret_cast<__m256i*>(slots + i), k);
        }
        for (std::size_t i = mv; i < m; ++i)
            slots[i] = slotOf(bp, double(load<float>(q, i)));
        counter.add(slots, m);
    }
}
#endif

inline void histogram(xdl::Dtype dtype, const std::uint8_t* p, std::size_t n, const BinParams& bp,
                      std::uint32_t* counts) {
    xdl::visitDtype(dtype, [&](auto t) {
        using T = typename decltype(t)::type;
#if defined(XT_KERNEL_AVX2)
        if constexpr (std::is_same_v<T, float>) {
            if (floatEdgesUsable(bp)) {
                histogramFloatFast(p, n, bp, counts);
                return;
            }
        }
#endif
        histogramRange<T>(p, n, bp, counts);
    });
}

} // namespace xt::analysis::kernels::XT_KERNEL_NS

#if defined(XT_KERNEL_AVX2) && defined(__clang__)
#pragma clang attribute pop
#elif defined(XT_KERNEL_AVX2)
#pragma GCC pop_options
#endif

// A unity build includes this file once for each build, in one source: the next one sets its own.
#undef XT_KERNEL_NS
#undef XT_KERNEL_AVX2
