#pragma once
// Pure functions behind the plots: min/max decimation that keeps spikes, debiased EMA smoothing
// and the x coordinate of a record for each x-axis mode.

#include "core/analysis/key_stats.h"

#include <cstddef>
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
