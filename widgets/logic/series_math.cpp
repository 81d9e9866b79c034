#include "widgets/logic/series_math.h"

#include <algorithm>
#include <cmath>

namespace xt::view {

double xOf(const analysis::RecordStats& r, XAxisMode mode) {
    switch (mode) {
    case XAxisMode::Gstep:
        return double(r.gstep);
    case XAxisMode::Lstep:
        return double(r.lstep);
    case XAxisMode::WallTime:
        return double(r.timestamp) / 1000.0;
    }
    return double(r.gstep);
}

namespace {

// The first lowest and first highest non-NaN point of a bucket, in the order offered.
struct Extremes {
    std::size_t lo = SIZE_MAX, hi = SIZE_MAX;
    double lowest = 0, highest = 0;
    void offerLow(std::size_t k, double v) {
        if (lo == SIZE_MAX || v < lowest) lo = k, lowest = v;
    }
    void offerHigh(std::size_t k, double v) {
        if (hi == SIZE_MAX || v > highest) hi = k, highest = v;
    }
    void offerPoints(std::span<const double> y, std::size_t from, std::size_t to) {
        std::size_t k = from;
        while (k < to && std::isnan(y[k]))
            ++k;
        if (k == to) return;
        offerLow(k, y[k]);
        offerHigh(k, y[k]);
        for (++k; k < to; ++k) { // kept in registers: a NaN never compares lower or higher
            const double v = y[k];
            if (v < lowest) lowest = v, lo = k;
            if (v > highest) highest = v, hi = k;
        }
    }
};

// The points of (x, y) in `buckets` equal x slices, each slice's extremes found by `extremes`
// over its point range [from, to); `end(from, hi)` is the first point past the slice's x edge.
template <class End, class Find>
XYSeries decimateWith(std::span<const double> x, std::span<const double> y, std::size_t buckets,
                      End end, Find extremes) {
    XYSeries out;
    const std::size_t n = std::min(x.size(), y.size());
    if (buckets == 0 || n <= 2 * buckets) {
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isnan(y[i])) {
                out.x.push_back(x[i]);
                out.y.push_back(y[i]);
            }
        return out;
    }
    const double x0 = x.front(), span = x[n - 1] - x.front();
    out.x.reserve(2 * buckets + 2);
    out.y.reserve(2 * buckets + 2);
    std::size_t i = 0;
    for (std::size_t b = 0; b < buckets && i < n; ++b) {
        // Up to the first x past the slice's upper edge (all the rest for the last slice).
        const std::size_t to =
            b + 1 == buckets ? n : end(i, x0 + span * double(b + 1) / double(buckets));
        const Extremes e = extremes(i, to);
        i = to;
        if (e.lo == SIZE_MAX) continue;
        const std::size_t first = std::min(e.lo, e.hi), second = std::max(e.lo, e.hi);
        out.x.push_back(x[first]);
        out.y.push_back(y[first]);
        if (second != first) {
            out.x.push_back(x[second]);
            out.y.push_back(y[second]);
        }
    }
    return out;
}

} // namespace

XYSeries decimateMinMax(std::span<const double> x, std::span<const double> y, std::size_t buckets) {
    const std::size_t n = std::min(x.size(), y.size());
    auto end = [&](std::size_t i, double hi) {
        while (i < n && x[i] <= hi)
            ++i;
        return i;
    };
    auto extremes = [&](std::size_t from, std::size_t to) {
        Extremes e;
        e.offerPoints(y, from, to);
        return e;
    };
    return decimateWith(x, y, buckets, end, extremes);
}

BlockExtrema blockExtrema(std::span<const double> x, std::span<const double> y) {
    constexpr std::size_t B = BlockExtrema::kBlock;
    const std::size_t n = std::min(x.size(), y.size());
    BlockExtrema blocks;
    const std::size_t count = (n + B - 1) / B;
    blocks.lowest.reserve(count);
    blocks.highest.reserve(count);
    blocks.maxX.reserve(count);
    for (std::size_t start = 0; start < n; start += B) {
        const std::size_t stop = std::min(n, start + B);
        Extremes e;
        e.offerPoints(y, start, stop);
        blocks.lowest.push_back(e.lo == SIZE_MAX ? BlockExtrema::kNone : std::uint32_t(e.lo));
        blocks.highest.push_back(e.hi == SIZE_MAX ? BlockExtrema::kNone : std::uint32_t(e.hi));
        // Four running maxima, so that the comparisons do not wait on each other.
        double m[4] = {x[start], x[start], x[start], x[start]};
        bool nan = false;
        std::size_t k = start;
        for (; k + 4 <= stop; k += 4)
            for (std::size_t lane = 0; lane < 4; ++lane) {
                const double v = x[k + lane];
                nan |= std::isnan(v);
                m[lane] = v > m[lane] ? v : m[lane];
            }
        for (; k < stop; ++k) {
            nan |= std::isnan(x[k]);
            m[0] = x[k] > m[0] ? x[k] : m[0];
        }
        const double maxX = std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
        blocks.maxX.push_back(nan ? std::nan("") : maxX);
    }
    return blocks;
}

XYSeries decimateMinMax(std::span<const double> x, std::span<const double> y, std::size_t buckets,
                        const BlockExtrema& blocks, std::size_t first) {
    constexpr std::size_t B = BlockExtrema::kBlock;
    const std::size_t n = std::min(x.size(), y.size());
    // Whether the line's block starting at the slice's point i lies whole inside [i, to).
    auto wholeBlockAt = [&](std::size_t i, std::size_t to) {
        return (first + i) % B == 0 && to - i >= B && (first + i) / B < blocks.maxX.size();
    };
    auto end = [&](std::size_t i, double hi) {
        while (i < n) {
            if (wholeBlockAt(i, n) && blocks.maxX[(first + i) / B] <= hi) {
                i += B;
                continue;
            }
            if (!(x[i] <= hi)) break;
            ++i;
        }
        return i;
    };
    auto extremes = [&](std::size_t from, std::size_t to) {
        Extremes e;
        std::size_t i = from;
        while (i < to) {
            if (!wholeBlockAt(i, to)) {
                // Points one by one up to the next block boundary (or the end of the bucket).
                const std::size_t next = std::min(to, i + (B - (first + i) % B));
                e.offerPoints(y, i, next);
                i = next;
                continue;
            }
            const std::size_t block = (first + i) / B;
            if (blocks.lowest[block] != BlockExtrema::kNone) {
                const std::size_t lo = blocks.lowest[block] - first;
                const std::size_t hi = blocks.highest[block] - first;
                e.offerLow(lo, y[lo]);
                e.offerHigh(hi, y[hi]);
            }
            i += B;
        }
        return e;
    };
    return decimateWith(x, y, buckets, end, extremes);
}

SeriesSpan visibleSlice(const XYSeries& s, double lo, double hi) {
    auto b = std::lower_bound(s.x.begin(), s.x.end(), lo);
    auto e = std::upper_bound(s.x.begin(), s.x.end(), hi);
    if (b != s.x.begin()) --b;
    if (e != s.x.end()) ++e;
    const auto i0 = std::size_t(b - s.x.begin()), n = std::size_t(e - b);
    return {std::span(s.x).subspan(i0, n), std::span(s.y).subspan(i0, n)};
}

std::vector<double> emaDebiased(const std::vector<double>& y, double weight) {
    std::vector<double> out(y.size(), std::nan(""));
    double s = 0, correction = 1;
    for (std::size_t i = 0; i < y.size(); ++i) {
        if (!std::isfinite(y[i])) continue;
        s = weight * s + (1 - weight) * y[i];
        correction *= weight;
        out[i] = correction < 1 ? s / (1 - correction) : y[i];
    }
    return out;
}

} // namespace xt::view
