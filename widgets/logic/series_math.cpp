#include "widgets/logic/series_math.h"

#include "core/analysis/parallel_loop.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

LinePoints::LinePoints(const analysis::RecordSeries& records, XAxisMode mode, double xShift,
                       Value value, analysis::StatField field)
    : m_records(&records), m_mode(mode), m_xShift(xShift), m_value(value), m_field(field) {}

LinePoints LinePoints::withY(std::vector<double> y) const {
    LinePoints out;
    if (m_records)
        out = LinePoints(*m_records, m_mode, m_xShift, Value::Own);
    else
        out.m_own.x = m_own.x;
    out.m_own.y = std::move(y);
    return out;
}

namespace {

using Field = analysis::RecordSeries::Field;

Field xField(XAxisMode mode) {
    return mode == XAxisMode::Lstep      ? Field::Lstep
           : mode == XAxisMode::WallTime ? Field::Timestamp
                                         : Field::Gstep;
}

Field fieldOf(analysis::StatField f) {
    using F = analysis::StatField;
    switch (f) {
    case F::Count:
        return Field::Count;
    case F::Nan:
        return Field::Nan;
    case F::Inf:
        return Field::Inf;
    case F::Zeros:
        return Field::Zeros;
    case F::Min:
        return Field::Min;
    case F::Max:
        return Field::Max;
    case F::Mean:
        return Field::Mean;
    case F::Std:
        return Field::Std;
    case F::L2:
        return Field::L2;
    }
    return Field::Mean;
}

} // namespace

void LinePoints::readX(std::size_t first, std::size_t n, double* out) const {
    if (!m_records) {
        std::copy_n(m_own.x.begin() + std::ptrdiff_t(first), n, out);
        return;
    }
    m_records->read(xField(m_mode), first, n, out);
    const double scale = m_mode == XAxisMode::WallTime ? 1000.0 : 1.0; // as xOf
    for (std::size_t i = 0; i < n; ++i)
        out[i] = out[i] / scale - m_xShift;
}

void LinePoints::readY(std::size_t first, std::size_t n, double* out) const {
    if (!m_records || m_value == Value::Own) {
        std::copy_n(m_own.y.begin() + std::ptrdiff_t(first), n, out);
        return;
    }
    // The values are analysis::statValue's: min, max, mean, std and l2 only of a record with a
    // finite element.
    const bool both = m_value != Value::Stat;
    const Field field = both ? Field::Mean : fieldOf(m_field);
    m_records->read(field, first, n, out);
    if (field < Field::Min) return; // a count
    constexpr std::size_t kPiece = 256;
    double other[kPiece], finite[kPiece];
    for (std::size_t i = 0; i < n; i += kPiece) {
        const std::size_t take = std::min(kPiece, n - i);
        m_records->read(Field::Finite, first + i, take, finite);
        if (both) m_records->read(Field::Std, first + i, take, other);
        const double sign = m_value == Value::MeanMinusStd ? -1.0 : 1.0;
        for (std::size_t k = 0; k < take; ++k) {
            double& y = out[i + k];
            if (both) y = y + sign * other[k];
            if (finite[k] == 0) y = std::nan("");
        }
    }
}

XYSeries LinePoints::copy(std::size_t first, std::size_t last) const {
    XYSeries out;
    constexpr std::size_t B = BlockExtrema::kBlock; // read a block at a time
    double x[B], y[B];
    for (std::size_t i = first; i < last; i += B) {
        const std::size_t n = std::min(B, last - i);
        readX(i, n, x);
        readY(i, n, y);
        for (std::size_t k = 0; k < n; ++k)
            if (!std::isnan(y[k])) {
                out.x.push_back(x[k]);
                out.y.push_back(y[k]);
            }
    }
    return out;
}

namespace {

// Points of plain arrays, as LinePoints offers them.
struct SpanPoints {
    std::span<const double> xs, ys;
    std::size_t size() const { return std::min(xs.size(), ys.size()); }
    double x(std::size_t i) const { return xs[i]; }
    double y(std::size_t i) const { return ys[i]; }
};

// Points [first, first + n) of P, numbered from 0.
template <class P> struct Slice {
    const P& p;
    std::size_t first, n;
    std::size_t size() const { return n; }
    double x(std::size_t i) const { return p.x(first + i); }
    double y(std::size_t i) const { return p.y(first + i); }
    void readY(std::size_t i, std::size_t count, double* out) const {
        p.readY(first + i, count, out);
    }
};

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
    // The points base, base + 1, ... with y[0..n).
    void offerValues(const double* y, std::size_t base, std::size_t n) {
        std::size_t k = 0;
        if (lo == SIZE_MAX) { // lo and hi are set together
            while (k < n && std::isnan(y[k]))
                ++k;
            if (k == n) return;
            lo = hi = base + k;
            lowest = highest = y[k++];
        }
        for (; k < n; ++k) { // kept in registers: a NaN never compares lower or higher
            const double v = y[k];
            if (v < lowest) lowest = v, lo = base + k;
            if (v > highest) highest = v, hi = base + k;
        }
    }
    void offerPoints(const SpanPoints& p, std::size_t from, std::size_t to) {
        offerValues(p.ys.data() + from, from, to - from);
    }
    template <class P> void offerPoints(const P& p, std::size_t from, std::size_t to) {
        double y[BlockExtrema::kBlock];
        for (std::size_t k = from; k < to; k += BlockExtrema::kBlock) {
            const std::size_t n = std::min(to - k, BlockExtrema::kBlock);
            p.readY(k, n, y);
            offerValues(y, k, n);
        }
    }
};

// Where each of `buckets` equal x slices of p ends: the slice b holds the points
// [ends[b - 1], ends[b]) (from 0 for the first); `end(from, hi)` is the first point past the
// slice's x edge. Empty when p is small enough to be drawn whole.
template <class P, class End>
std::vector<std::size_t> endsWith(const P& p, std::size_t buckets, End end) {
    std::vector<std::size_t> ends;
    const std::size_t n = p.size();
    if (buckets == 0 || n <= 2 * buckets) return ends;
    const double x0 = p.x(0), span = p.x(n - 1) - x0;
    ends.reserve(buckets);
    std::size_t i = 0;
    for (std::size_t b = 0; b < buckets && i < n; ++b) {
        // Up to the first x past the slice's upper edge (all the rest for the last slice).
        i = b + 1 == buckets ? n : end(i, x0 + span * double(b + 1) / double(buckets));
        ends.push_back(i);
    }
    return ends;
}

// Each slice's first lowest and first highest point in x order, found by `extremes` over its
// point range [from, to); every point with a y when there are no slices.
template <class P, class Find>
XYSeries decimateWith(const P& p, std::span<const std::size_t> ends, Find extremes,
                      Keep keep = Keep::Both) {
    XYSeries out;
    if (ends.empty()) {
        for (std::size_t i = 0; i < p.size(); ++i)
            if (const double v = p.y(i); !std::isnan(v)) {
                out.x.push_back(p.x(i));
                out.y.push_back(v);
            }
        return out;
    }
    out.x.reserve(2 * ends.size() + 2);
    out.y.reserve(2 * ends.size() + 2);
    std::size_t i = 0;
    for (const std::size_t to : ends) {
        const std::size_t from = i;
        const Extremes e = extremes(i, to);
        i = to;
        if (e.lo == SIZE_MAX) continue;
        if (keep != Keep::Both) { // at the bucket's first x: a band's two edges share their keys
            const std::size_t k = keep == Keep::Lowest ? e.lo : e.hi;
            const double x = p.x(from);
            out.x.push_back(std::isnan(x) ? p.x(k) : x);
            out.y.push_back(p.y(k));
            continue;
        }
        const std::size_t first = std::min(e.lo, e.hi), second = std::max(e.lo, e.hi);
        out.x.push_back(p.x(first));
        out.y.push_back(p.y(first));
        if (second != first) {
            out.x.push_back(p.x(second));
            out.y.push_back(p.y(second));
        }
    }
    return out;
}

// [first, last) of the points with x in [lo, hi], plus one on each side.
template <class P> std::pair<std::size_t, std::size_t> rangeOf(const P& p, double lo, double hi) {
    auto partition = [&](auto below) { // the first index where below(x) is false
        std::size_t a = 0, n = p.size();
        while (n > 0) {
            const std::size_t half = n / 2;
            if (below(p.x(a + half))) {
                a += half + 1;
                n -= half + 1;
            } else {
                n = half;
            }
        }
        return a;
    };
    std::size_t b = partition([&](double x) { return x < lo; });
    std::size_t e = partition([&](double x) { return !(hi < x); });
    if (b > 0) --b;
    if (e < p.size()) ++e;
    return {b, std::max(b, e)};
}

} // namespace

XYSeries decimateMinMax(std::span<const double> x, std::span<const double> y, std::size_t buckets) {
    const SpanPoints p{x, y};
    const std::size_t n = p.size();
    auto end = [&](std::size_t i, double hi) {
        while (i < n && x[i] <= hi)
            ++i;
        return i;
    };
    auto extremes = [&](std::size_t from, std::size_t to) {
        Extremes e;
        e.offerPoints(p, from, to);
        return e;
    };
    return decimateWith(p, endsWith(p, buckets, end), extremes);
}

namespace {

// The blocks of the points of lines, in stretches of 4096 blocks (256 Ki points): millions of
// points (a run of small records) on every core.
class Stretches {
public:
    explicit Stretches(std::span<const LinePoints* const> lines) {
        std::size_t longest = 0;
        for (const LinePoints* line : lines)
            longest = std::max(longest, line->size());
        m_blocks = (longest + BlockExtrema::kBlock - 1) / BlockExtrema::kBlock;
    }
    std::size_t count() const { return (m_blocks + kStretch - 1) / kStretch; }
    // fn(stretch, first block, last block) for each stretch.
    template <class Fn> void run(Fn fn) const {
        const auto one = [&](std::size_t s) {
            fn(s, s * kStretch, std::min(m_blocks, (s + 1) * kStretch));
        };
        if (count() == 1)
            one(0);
        else if (count() > 1)
            analysis::ParallelLoop(0).run(count(), [&](std::size_t s, unsigned) { one(s); });
    }

private:
    static constexpr std::size_t kStretch = 4096;
    std::size_t m_blocks = 0;
};

// For each line, the line whose blocks it takes: its own, or the first earlier line of the same
// x that it equals whole, bit for bit (compared stretch by stretch).
std::vector<std::size_t> ownersOf(std::span<const LinePoints* const> lines,
                                  const Stretches& stretches) {
    constexpr std::size_t B = BlockExtrema::kBlock;
    const std::size_t L = lines.size(), n = stretches.count();
    std::vector<std::size_t> owner(L);
    for (std::size_t l = 0; l < L; ++l)
        owner[l] = l;
    if (L < 2 || n == 0) return owner;
    // The first earlier line that each line equals in each stretch (L: none).
    std::vector<std::size_t> equalIn(L * n, L);
    stretches.run([&](std::size_t s, std::size_t first, std::size_t last) {
        double a[B], b[B];
        for (std::size_t l = 1; l < L; ++l)
            for (std::size_t k = 0; k < l && equalIn[l * n + s] == L; ++k) {
                if (!lines[l]->sameX(*lines[k])) continue;
                const std::size_t stop = std::min(lines[l]->size(), last * B);
                bool equal = true;
                for (std::size_t i = first * B; i < stop && equal; i += B) {
                    const std::size_t m = std::min(B, stop - i);
                    lines[l]->readY(i, m, a);
                    lines[k]->readY(i, m, b);
                    equal = std::memcmp(a, b, m * sizeof(double)) == 0;
                }
                if (equal) equalIn[l * n + s] = k;
            }
    });
    for (std::size_t l = 1; l < L; ++l) {
        const auto in = std::span(equalIn).subspan(l * n, n);
        if (in[0] != L && std::ranges::count(in, in[0]) == std::ptrdiff_t(n))
            owner[l] = owner[in[0]];
    }
    return owner;
}

// The blocks of the lines that own theirs (owner[l] == l; the others' stay empty), found block by
// block across the lines.
std::vector<BlockExtrema> extremaOf(std::span<const LinePoints* const> lines,
                                    const Stretches& stretches,
                                    const std::vector<std::size_t>& owner) {
    constexpr std::size_t B = BlockExtrema::kBlock;
    const std::size_t L = lines.size();
    std::vector<BlockExtrema> out(L);
    for (std::size_t l = 0; l < L; ++l) {
        if (owner[l] != l) continue;
        const std::size_t n = (lines[l]->size() + B - 1) / B;
        out[l].lowest.resize(n);
        out[l].highest.resize(n);
        out[l].low.resize(n);
        out[l].high.resize(n);
        out[l].maxX.resize(n);
    }
    // Lines with the x of an earlier line take its largest x of each block.
    std::vector<std::size_t> xOfLine(L);
    for (std::size_t l = 0; l < L; ++l) {
        xOfLine[l] = l;
        for (std::size_t k = 0; k < l && xOfLine[l] == l; ++k)
            if (owner[k] == k && lines[l]->sameX(*lines[k])) xOfLine[l] = k;
    }
    stretches.run([&](std::size_t, std::size_t first, std::size_t last) {
        double x[B];
        for (std::size_t b = first; b < last; ++b)
            for (std::size_t l = 0; l < L; ++l) {
                const LinePoints& line = *lines[l];
                const std::size_t start = b * B;
                if (owner[l] != l || start >= line.size()) continue;
                const std::size_t stop = std::min(line.size(), start + B);
                BlockExtrema& blocks = out[l];
                Extremes e;
                e.offerPoints(line, start, stop);
                blocks.lowest[b] = e.lo == SIZE_MAX ? BlockExtrema::kNone : std::uint32_t(e.lo);
                blocks.highest[b] = e.hi == SIZE_MAX ? BlockExtrema::kNone : std::uint32_t(e.hi);
                blocks.low[b] = e.lowest;
                blocks.high[b] = e.highest;
                if (xOfLine[l] != l) {
                    blocks.maxX[b] = out[xOfLine[l]].maxX[b];
                    continue;
                }
                line.readX(start, stop - start, x);
                double maxX = x[0];
                bool nan = false;
                for (std::size_t k = 0; k < stop - start; ++k) {
                    nan |= std::isnan(x[k]);
                    maxX = x[k] > maxX ? x[k] : maxX;
                }
                blocks.maxX[b] = nan ? std::nan("") : maxX;
            }
    });
    return out;
}

} // namespace

BlockExtrema blockExtrema(const LinePoints& line) {
    const LinePoints* one[] = {&line};
    return std::move(extremaOf(one, Stretches(one), {0}).front());
}

std::vector<std::shared_ptr<const BlockExtrema>>
blockExtrema(std::span<const LinePoints* const> lines) {
    const Stretches stretches(lines);
    const std::vector<std::size_t> owner = ownersOf(lines, stretches);
    std::vector<BlockExtrema> out = extremaOf(lines, stretches, owner);
    std::vector<std::shared_ptr<const BlockExtrema>> shared(lines.size());
    for (std::size_t l = 0; l < lines.size(); ++l)
        shared[l] = owner[l] == l ? std::make_shared<const BlockExtrema>(std::move(out[l]))
                                  : shared[owner[l]];
    return shared;
}

std::vector<std::size_t> bucketEnds(const LinePoints& line, std::size_t first, std::size_t last,
                                    std::size_t buckets, const BlockExtrema& blocks) {
    constexpr std::size_t B = BlockExtrema::kBlock;
    const Slice<LinePoints> p{line, first, last - first};
    const std::size_t n = p.size();
    auto end = [&](std::size_t i, double hi) {
        while (i < n) {
            // A whole block of the line at once where its largest x is inside the slice.
            if ((first + i) % B == 0 && n - i >= B && (first + i) / B < blocks.maxX.size() &&
                blocks.maxX[(first + i) / B] <= hi) {
                i += B;
                continue;
            }
            if (!(p.x(i) <= hi)) break;
            ++i;
        }
        return i;
    };
    return endsWith(p, buckets, end);
}

XYSeries decimateMinMax(const LinePoints& line, std::size_t first, std::size_t last,
                        std::span<const std::size_t> ends, const BlockExtrema& blocks, Keep keep) {
    constexpr std::size_t B = BlockExtrema::kBlock;
    const Slice<LinePoints> p{line, first, last - first};
    // Whether the line's block starting at the slice's point i lies whole inside [i, to).
    auto wholeBlockAt = [&](std::size_t i, std::size_t to) {
        return (first + i) % B == 0 && to - i >= B && (first + i) / B < blocks.maxX.size();
    };
    auto extremes = [&](std::size_t from, std::size_t to) {
        Extremes e;
        std::size_t i = from;
        while (i < to) {
            if (!wholeBlockAt(i, to)) {
                // Points one by one up to the next block boundary (or the end of the bucket).
                const std::size_t next = std::min(to, i + (B - (first + i) % B));
                e.offerPoints(p, i, next);
                i = next;
                continue;
            }
            const std::size_t block = (first + i) / B;
            if (blocks.lowest[block] != BlockExtrema::kNone) {
                const std::size_t lo = blocks.lowest[block] - first;
                const std::size_t hi = blocks.highest[block] - first;
                e.offerLow(lo, blocks.low[block]);
                e.offerHigh(hi, blocks.high[block]);
            }
            i += B;
        }
        return e;
    };
    return decimateWith(p, ends, extremes, keep);
}

XYSeries decimateMinMax(const LinePoints& line, std::size_t first, std::size_t last,
                        std::size_t buckets, const BlockExtrema& blocks) {
    return decimateMinMax(line, first, last, bucketEnds(line, first, last, buckets, blocks),
                          blocks);
}

std::pair<std::size_t, std::size_t> visibleRange(const LinePoints& line, double lo, double hi) {
    return rangeOf(line, lo, hi);
}

SeriesSpan visibleSlice(const XYSeries& s, double lo, double hi) {
    const auto [i0, i1] = rangeOf(SpanPoints{s.x, s.y}, lo, hi);
    return {std::span(s.x).subspan(i0, i1 - i0), std::span(s.y).subspan(i0, i1 - i0)};
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

std::optional<std::pair<double, double>> fitXRange(std::span<const LinePoints* const> lines,
                                                   bool logX, bool logY) {
    std::optional<std::pair<double, double>> xr;
    for (const LinePoints* d : lines) {
        std::size_t i = 0, j = d->size();
        while (i < j && !drawablePoint(d->x(i), d->y(i), logX, logY))
            ++i;
        while (j > i && !drawablePoint(d->x(j - 1), d->y(j - 1), logX, logY))
            --j;
        if (i == j) continue;
        if (!xr) xr = {d->x(i), d->x(i)};
        xr->first = std::min({xr->first, d->x(i), d->x(j - 1)});
        xr->second = std::max({xr->second, d->x(i), d->x(j - 1)});
    }
    if (!xr) return std::nullopt;
    if (logX) return std::pair{xr->first / 1.1, xr->second * 1.1};
    if (xr->first == xr->second) return std::pair{xr->first - 0.5, xr->second + 0.5};
    return xr;
}

std::vector<XYSeries> decimateLines(std::span<const LineToDecimate> lines,
                                    const DecimatedView& view) {
    std::vector<std::size_t> ends;
    const LinePoints* endsOf = nullptr; // the line `ends` were found for...
    std::size_t endsBuckets = 0;        // ...and the buckets
    struct Decimated {
        const BlockExtrema* blocks;
        std::size_t buckets;
        Keep keep;
        const XYSeries* points;
    };
    std::vector<Decimated> decimated; // lines with equal points (one blocks) are decimated once
    std::vector<XYSeries> out(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const LineToDecimate& l = lines[i];
        const auto [first, last] = visibleRange(*l.data, view.lower, view.upper);
        XYSeries& d = out[i];
        if (view.logX || view.logY) {
            // Nothing at x <= 0 on a log x axis, nor at y <= 0 on a log y axis; on log x,
            // buckets of equal width on the log axis. The line's blocks do not apply.
            XYSeries visible = l.data->copy(first, last);
            XYSeries kept;
            for (std::size_t k = 0; k < visible.x.size(); ++k) {
                if (view.logX && !(visible.x[k] > 0)) continue;
                if (view.logY && !(visible.y[k] > 0)) continue;
                kept.x.push_back(view.logX ? std::log10(visible.x[k]) : visible.x[k]);
                kept.y.push_back(visible.y[k]);
            }
            d = l.markers ? std::move(kept) : decimateMinMax(kept.x, kept.y, view.buckets);
            if (view.logX)
                for (auto& x : d.x)
                    x = std::pow(10.0, x);
        } else if (l.markers) {
            d = l.data->copy(first, last);
        } else {
            // A band's edges are only filled between, not drawn: a bucket per two pixels is
            // enough for them, its lowest point for the lower edge and its highest for the upper
            // (filling between edges of a lowest and a highest point per pixel, which zigzag
            // across the band, took 30 of the first paint's 50 ms with 8 bands, and 36% of the
            // GUI thread's time while a large run of small records opened). Lines of one series
            // (mean, bands) have the same x, so the same buckets.
            const std::size_t want =
                l.value ? view.buckets : std::max<std::size_t>(100, view.buckets / 2);
            if (!endsOf || !l.data->sameX(*endsOf) || endsBuckets != want) {
                ends = bucketEnds(*l.data, first, last, want, *l.blocks);
                endsOf = l.data;
                endsBuckets = want;
            }
            const auto done = std::ranges::find_if(decimated, [&](const Decimated& e) {
                return e.blocks == l.blocks && e.buckets == want && e.keep == l.keep;
            });
            if (done != decimated.end()) {
                d = *done->points;
            } else {
                d = decimateMinMax(*l.data, first, last, ends, *l.blocks, l.keep);
                decimated.push_back({l.blocks, want, l.keep, &d});
            }
        }
    }
    return out;
}

} // namespace xt::view
