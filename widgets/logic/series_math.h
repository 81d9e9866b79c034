#pragma once
// Pure functions behind the plots: min/max decimation that keeps spikes, debiased EMA smoothing
// and the x coordinate of a record for each x-axis mode.

#include "core/analysis/key_stats.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace xt::view {

enum class XAxisMode { Gstep, Lstep, WallTime };

// The x coordinate of a record (wall time in seconds since the epoch).
double xOf(const analysis::RecordStats& r, XAxisMode mode);

struct XYSeries {
    std::vector<double> x, y;
};

// Keeps at most about 2 * buckets points of (x ascending, y): each of `buckets` equal x slices
// of [x.front(), x.back()] contributes its minimum and maximum in x order, so a single spike
// survives. Series that are already small enough are returned unchanged. NaN y are dropped.
XYSeries decimateMinMax(std::span<const double> x, std::span<const double> y, std::size_t buckets);

// For each block of kBlock points of a line: its first lowest and first highest point (NaN never
// counts; kNone when there is no other) and its largest x (NaN when it has a NaN x). With them,
// decimateMinMax reads only the points of the blocks that a bucket does not cover whole.
struct BlockExtrema {
    static constexpr std::size_t kBlock = 64;
    static constexpr std::uint32_t kNone = UINT32_MAX;
    std::vector<std::uint32_t> lowest, highest; // indices into the line
    std::vector<double> maxX;
};
BlockExtrema blockExtrema(std::span<const double> x, std::span<const double> y);
// The same points as decimateMinMax(x, y, buckets), where x and y are the part of a line from
// its point `first` on (a visibleSlice) and `blocks` are the line's.
XYSeries decimateMinMax(std::span<const double> x, std::span<const double> y, std::size_t buckets,
                        const BlockExtrema& blocks, std::size_t first);

// A view of part of a series (no copy).
struct SeriesSpan {
    std::span<const double> x, y;
};
// The points of (x ascending, y) with x in [lo, hi], plus one on each side so lines reach the
// edges of the view.
SeriesSpan visibleSlice(const XYSeries& s, double lo, double hi);
// TensorBoard-style exponential moving average with bias correction: s_n = w s_{n-1} +
// (1 - w) y_n, reported as s_n / (1 - w^n). weight in [0, 1); NaN inputs are skipped.
std::vector<double> emaDebiased(const std::vector<double>& y, double weight);

} // namespace xt::view
