#pragma once
// Pure functions behind the plots: min/max decimation that keeps spikes, debiased EMA smoothing
// and the x coordinate of a record for each x-axis mode.

#include "core/analysis/key_stats.h"
#include "core/analysis/step_aggregate.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
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

// The points of one plotted line, x ascending: its own (x, y), or one value of each record of a
// series, read from the records in place (a line of a million records would otherwise cost
// 16 MB). A record without the value (no finite element) has a NaN y, which is never drawn.
class LinePoints {
public:
    enum class Value : std::uint8_t { Stat, MeanMinusStd, MeanPlusStd, Own };
    LinePoints() = default;
    explicit LinePoints(XYSeries own) : m_own(std::move(own)) {}
    // The statistic `field` of each record (Value::Stat), or mean -/+ std; x is
    // xOf(record, mode) - xShift. `records` must outlive the line.
    LinePoints(const analysis::RecordSeries& records, XAxisMode mode, double xShift, Value value,
               analysis::StatField field = analysis::StatField::Mean);
    // The same x with y of its own, one per point (a smoothed line).
    LinePoints withY(std::vector<double> y) const;

    std::size_t size() const { return m_records ? m_records->size() : m_own.x.size(); }
    bool empty() const { return size() == 0; }
    double x(std::size_t i) const {
        double v;
        readX(i, 1, &v);
        return v;
    }
    double y(std::size_t i) const {
        double v;
        readY(i, 1, &v);
        return v;
    }
    // Both read their x from the same records.
    bool sameX(const LinePoints& o) const {
        return m_records && m_records == o.m_records && m_mode == o.m_mode &&
               m_xShift == o.m_xShift;
    }
    // x or y of the points [first, first + n) into out.
    void readX(std::size_t first, std::size_t n, double* out) const;
    void readY(std::size_t first, std::size_t n, double* out) const;
    // The points [first, last) that have a y (NaN y left out).
    XYSeries copy(std::size_t first, std::size_t last) const;
    XYSeries copy() const { return copy(0, size()); }

private:
    const analysis::RecordSeries* m_records = nullptr;
    XAxisMode m_mode = XAxisMode::Gstep;
    double m_xShift = 0;
    Value m_value = Value::Own;
    analysis::StatField m_field = analysis::StatField::Mean;
    XYSeries m_own; // x and y; only y with records
};

// For each block of kBlock points of a line: its first lowest and first highest point (NaN never
// counts; kNone when there is no other), their y, and its largest x (NaN when it has a NaN x).
// With them, decimateMinMax reads only the points of the blocks that a bucket does not cover
// whole.
struct BlockExtrema {
    static constexpr std::size_t kBlock = 64;
    static constexpr std::uint32_t kNone = UINT32_MAX;
    std::vector<std::uint32_t> lowest, highest; // indices into the line
    std::vector<double> low, high;              // y there
    std::vector<double> maxX;
};
BlockExtrema blockExtrema(const LinePoints& line);
// Those of several lines, found block by block across the lines: lines that read one series
// read each record once, not once per line. A line whose points equal an earlier line's, bit for
// bit, shares its blocks: a scalar's min, max, mean and mean -/+ std are one line.
std::vector<std::shared_ptr<const BlockExtrema>>
blockExtrema(std::span<const LinePoints* const> lines);
// The same points as decimateMinMax over the line's points [first, last), through its blocks.
XYSeries decimateMinMax(const LinePoints& line, std::size_t first, std::size_t last,
                        std::size_t buckets, const BlockExtrema& blocks);
// The same in two steps, so that lines with the same x (sameX) find their buckets once: where
// each bucket of the points [first, last) ends (empty: draw them all), then their points.
std::vector<std::size_t> bucketEnds(const LinePoints& line, std::size_t first, std::size_t last,
                                    std::size_t buckets, const BlockExtrema& blocks);
// Which points of each bucket decimation keeps: its lowest and its highest (a line), or only its
// lowest or only its highest, at the bucket's first x (the lower or upper edge of a band filled
// between them: such edges do not zigzag within a bucket, and share their keys).
enum class Keep { Both, Lowest, Highest };
XYSeries decimateMinMax(const LinePoints& line, std::size_t first, std::size_t last,
                        std::span<const std::size_t> ends, const BlockExtrema& blocks,
                        Keep keep = Keep::Both);
// The points [first, last) of a line with x in [lo, hi], plus one on each side so lines reach
// the edges of the view.
std::pair<std::size_t, std::size_t> visibleRange(const LinePoints& line, double lo, double hi);

// A point a plot draws and a fit includes: a finite y, and nothing a log axis cannot show.
inline bool drawablePoint(double x, double y, bool logX, bool logY) {
    return std::isfinite(y) && !(logY && y <= 0) && !(logX && !(x > 0));
}
// The x range a fit shows: every line's first and last drawable point, padded by 10% on a log
// axis, by 0.5 around a single x; none without a drawable point.
std::optional<std::pair<double, double>> fitXRange(std::span<const LinePoints* const> lines,
                                                   bool logX, bool logY);
// The x range [lower, upper] and the buckets (one a pixel) lines are decimated for.
struct DecimatedView {
    double lower, upper;
    std::size_t buckets;
    bool logX, logY;
    bool operator==(const DecimatedView&) const = default;
};
// What decimating one line reads: its points and blocks (none for markers), whether it is a
// value line (a band's edges get a bucket per two pixels) and which points it keeps.
struct LineToDecimate {
    const LinePoints* data;
    const BlockExtrema* blocks;
    bool value, markers;
    Keep keep;
};
// The points each line draws in `view`: min/max decimated; markers as they are; on a log axis,
// without the points it cannot show (and on log x, in buckets of equal log width). Lines with
// the same blocks, buckets and keep are decimated once.
std::vector<XYSeries> decimateLines(std::span<const LineToDecimate> lines,
                                    const DecimatedView& view);

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
