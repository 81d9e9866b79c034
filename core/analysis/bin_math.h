#pragma once
// Internal: the bin arithmetic shared by the CPU kernels and the CUDA kernels, so both backends
// put every element in the same bin. Every element maps to a slot: 0..bins-1 for a bin, then
// the slots counted apart (NaN, +Inf, -Inf, below, above).

#include "core/analysis/histogram.h"

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define XT_HOST_DEVICE __host__ __device__
#else
#define XT_HOST_DEVICE
#endif

namespace xt::analysis {

enum BinSlot : int {
    kSlotNan = 0,
    kSlotPosInf = 1,
    kSlotNegInf = 2,
    kSlotBelow = 3,
    kSlotAbove = 4
};
inline constexpr int kExtraSlots = 5;

struct BinParams {
    double lo, hi; // data range
    double ulo;    // lo in the binned coordinate
    double step;   // bin width in the binned coordinate (numpy.linspace's step)
    double norm;   // bins / (uhi - ulo)
    double linthresh;
    int bins;
    bool symlog;

    static BinParams from(const BinLayout& l) {
        BinParams p;
        p.lo = l.lo;
        p.hi = l.hi;
        p.ulo = l.transform(l.lo);
        const double uhi = l.transform(l.hi);
        p.step = (uhi - p.ulo) / l.bins;
        p.norm = l.bins / (uhi - p.ulo);
        p.linthresh = l.linthresh;
        p.bins = l.bins;
        p.symlog = l.scale == BinScale::SymLog;
        return p;
    }
};

XT_HOST_DEVICE inline double symlogTransform(double x, double linthresh) {
    const double a = log10(1.0 + fabs(x) / linthresh);
    return x < 0 ? -a : a;
}

// The bin of u (already in the binned coordinate) with lo <= x <= hi: numpy.histogram's rule,
// index from the scaled offset, then corrected against the linspace edges.
XT_HOST_DEVICE inline int binOfTransformed(const BinParams& p, double u) {
    double f = (u - p.ulo) * p.norm;
    f = f < 0 ? 0 : (f > double(p.bins - 1) ? double(p.bins - 1) : f);
    int i = int(f);
    if (u < double(i) * p.step + p.ulo) {
        i = i > 0 ? i - 1 : 0;
    } else if (i != p.bins - 1 && u >= double(i + 1) * p.step + p.ulo) {
        ++i;
    }
    return i;
}

// Adds slot counts (bins + kExtraSlots entries) into a histogram of the same bin count.
inline void addSlotsTo(Histogram& h, const std::uint32_t* counts) {
    const int bins = h.layout.bins;
    for (int i = 0; i < bins; ++i)
        h.counts[std::size_t(i)] += counts[i];
    h.nan += counts[bins + kSlotNan];
    h.posInf += counts[bins + kSlotPosInf];
    h.negInf += counts[bins + kSlotNegInf];
    h.below += counts[bins + kSlotBelow];
    h.above += counts[bins + kSlotAbove];
}

// The slot of one element: a bin index, or p.bins + a BinSlot.
XT_HOST_DEVICE inline int slotOf(const BinParams& p, double x) {
    if (x != x) return p.bins + kSlotNan;
    if (x < p.lo) return p.bins + (x == -HUGE_VAL ? kSlotNegInf : kSlotBelow);
    if (x > p.hi) return p.bins + (x == HUGE_VAL ? kSlotPosInf : kSlotAbove);
    return binOfTransformed(p, p.symlog ? symlogTransform(x, p.linthresh) : x);
}

} // namespace xt::analysis
