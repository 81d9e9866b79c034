// The plots' series math without Qt: min/max decimation keeps spikes of a million points and
// passes small series through; lines read from records give each record's value and decimate as
// their points would; the debiased EMA keeps a constant constant and skips NaN; the visible part
// of a series reaches the view's edges.
#include "widgets/logic/series_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace xt::view {
namespace {

// Equal values, NaN equal to NaN (a NaN x can be a point of the decimation).
::testing::AssertionResult sameValues(const std::vector<double>& a, const std::vector<double>& b) {
    const bool same = std::equal(a.begin(), a.end(), b.begin(), b.end(), [](double p, double q) {
        return p == q || (std::isnan(p) && std::isnan(q));
    });
    if (same) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << a.size() << " values against " << b.size();
}

TEST(SeriesMath, DecimationKeepsSpikesOfAMillionPoints) {
    std::vector<double> x(1000000), y(1000000);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = double(i);
        y[i] = std::sin(double(i) * 1e-4);
    }
    y[654321] = 50;
    y[123456] = -40;
    const XYSeries d = decimateMinMax(x, y, 1000);
    EXPECT_LE(d.x.size(), 2000u);
    EXPECT_EQ(*std::max_element(d.y.begin(), d.y.end()), 50);
    EXPECT_EQ(*std::min_element(d.y.begin(), d.y.end()), -40);
    EXPECT_TRUE(std::is_sorted(d.x.begin(), d.x.end()));
    // Small series pass through unchanged.
    const std::vector<double> sx{1, 2, 3}, sy{4, 5, 6};
    const XYSeries s = decimateMinMax(sx, sy, 1000);
    EXPECT_EQ(s.y, (std::vector<double>{4, 5, 6}));
}

// Each bucket's first lowest and first highest point, in x order, found the plain way (a
// series of at most two points a bucket passes whole).
XYSeries referenceDecimation(const std::vector<double>& x, const std::vector<double>& y,
                             std::size_t buckets) {
    XYSeries out;
    const std::size_t n = x.size();
    if (n <= 2 * buckets) { // few enough: all of them
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isnan(y[i])) {
                out.x.push_back(x[i]);
                out.y.push_back(y[i]);
            }
        return out;
    }
    const double x0 = x.front(), span = x[n - 1] - x.front();
    std::size_t i = 0;
    for (std::size_t b = 0; b < buckets && i < n; ++b) {
        const bool last = b + 1 == buckets;
        const double hi = x0 + span * double(b + 1) / double(buckets);
        std::vector<std::size_t> in;
        for (; i < n && (last || x[i] <= hi); ++i)
            if (!std::isnan(y[i])) in.push_back(i);
        if (in.empty()) continue;
        std::size_t lo = in[0], top = in[0];
        for (std::size_t k : in) {
            if (y[k] < y[lo]) lo = k;
            if (y[k] > y[top]) top = k;
        }
        std::vector<std::size_t> picked{std::min(lo, top)};
        if (lo != top) picked.push_back(std::max(lo, top));
        for (std::size_t k : picked) {
            out.x.push_back(x[k]);
            out.y.push_back(y[k]);
        }
    }
    return out;
}

TEST(SeriesMath, DecimationPicksTheSamePointsAsAPlainPass) {
    // NaN runs, infinities, ties, empty buckets and a step back in x (a restarted run); with
    // and without the line's block extrema, over the whole line and over a part of it. The
    // first lines have hundreds of thousands of points: their blocks are found on every core.
    std::mt19937 rng(3);
    for (int trial = 0; trial < 50; ++trial) {
        const std::size_t n = trial < 2 ? 300000 + rng() % 50000 : 3000 + rng() % 20000;
        std::vector<double> x(n), y(n);
        double at = 0;
        for (std::size_t i = 0; i < n; ++i) {
            at += (rng() % 50 == 0) ? 40.0 : (rng() % 400 == 0 ? -30.0 : 1.0);
            x[i] = at;
            const unsigned r = rng() % 100;
            y[i] = r < 5    ? std::nan("")
                   : r < 7  ? (r == 5 ? 1.0 : -1.0) * INFINITY
                   : r < 30 ? double(rng() % 4)
                            : std::sin(double(i) * 0.01) + double(rng() % 1000) * 1e-3;
        }
        if (trial % 5 == 0) x[rng() % n] = std::nan(""); // a NaN x ends its bucket early
        const LinePoints line(XYSeries{x, y});
        const BlockExtrema blocks = blockExtrema(line);
        for (std::size_t buckets : {1u, 7u, 200u, 1000u}) {
            SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(buckets));
            const XYSeries got = decimateMinMax(x, y, buckets);
            const XYSeries want = referenceDecimation(x, y, buckets);
            ASSERT_TRUE(sameValues(got.x, want.x));
            ASSERT_TRUE(sameValues(got.y, want.y));
            // The whole line and a part of it (as a visible range is) through its blocks.
            const XYSeries whole = decimateMinMax(line, 0, n, buckets, blocks);
            ASSERT_TRUE(sameValues(whole.x, want.x));
            ASSERT_TRUE(sameValues(whole.y, want.y));
            const std::size_t first = rng() % (n / 3), count = n / 2 + rng() % (n - first - n / 2);
            const std::vector<double> px(x.begin() + first, x.begin() + first + count),
                py(y.begin() + first, y.begin() + first + count);
            const XYSeries part = decimateMinMax(line, first, first + count, buckets, blocks);
            const XYSeries partWant = referenceDecimation(px, py, buckets);
            ASSERT_TRUE(sameValues(part.x, partWant.x));
            ASSERT_TRUE(sameValues(part.y, partWant.y));
        }
    }
}

// A band's edges keep one point of each bucket: the lower edge its first lowest, the upper its
// first highest (NaN never counts; a bucket of NaN only keeps none), through the line's blocks,
// at the bucket's first x.
TEST(SeriesMath, BandEdgesKeepEachBucketsLowestOrHighestPoint) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 20; ++trial) {
        const std::size_t n = 2000 + rng() % 20000;
        std::vector<double> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = double(i) + (rng() % 100 == 0 ? 50.0 : 0.0) * double(i % 7);
            const unsigned r = rng() % 100;
            y[i] = r < 5    ? std::nan("")
                   : r < 35 ? double(rng() % 4)
                            : std::sin(double(i) * 0.01) + double(rng() % 1000) * 1e-3;
        }
        std::sort(x.begin(), x.end());
        const LinePoints line(XYSeries{x, y});
        const BlockExtrema blocks = blockExtrema(line);
        for (std::size_t buckets : {1u, 50u, 700u, 100000u}) {
            SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(buckets));
            const auto ends = bucketEnds(line, 0, n, buckets, blocks);
            for (Keep keep : {Keep::Lowest, Keep::Highest}) {
                XYSeries want;
                std::size_t i = 0;
                for (const std::size_t to : ends.empty() ? std::vector<std::size_t>{} : ends) {
                    std::size_t best = SIZE_MAX;
                    for (std::size_t k = i; k < to; ++k)
                        if (!std::isnan(y[k]) &&
                            (best == SIZE_MAX ||
                             (keep == Keep::Lowest ? y[k] < y[best] : y[k] > y[best])))
                            best = k;
                    const std::size_t from = i;
                    i = to;
                    if (best == SIZE_MAX) continue;
                    want.x.push_back(x[from]);
                    want.y.push_back(y[best]);
                }
                if (ends.empty()) // few points: all of them
                    for (std::size_t k = 0; k < n; ++k)
                        if (!std::isnan(y[k])) {
                            want.x.push_back(x[k]);
                            want.y.push_back(y[k]);
                        }
                const XYSeries got = decimateMinMax(line, 0, n, ends, blocks, keep);
                ASSERT_TRUE(sameValues(got.x, want.x));
                ASSERT_TRUE(sameValues(got.y, want.y));
            }
        }
    }
}

TEST(SeriesMath, LinesReadFromRecordsGiveEachRecordsValue) {
    // 1500 records (two chunks of RecordSeries and a tail), every fourth without a finite
    // element; x steps back once (a restarted run).
    analysis::RecordSeries records;
    std::mt19937 rng(11);
    for (std::size_t i = 0; i < 1500; ++i) {
        analysis::RecordStats r;
        r.record = i;
        r.gstep = std::int64_t(i < 700 ? 10 * i : 10 * i - 3000);
        r.lstep = std::int64_t(i + 1);
        r.timestamp = 1700000000000 + std::int64_t(i) * 250;
        r.stats.count = 8;
        r.stats.zeros = rng() % 3;
        if (i % 4 == 3) {
            r.stats.nan = 8;
        } else {
            r.stats.finite = 8;
            r.stats.min = -double(rng() % 100);
            r.stats.max = double(rng() % 100);
            r.stats.mean = double(rng() % 1000) * 1e-2;
            r.stats.std = double(rng() % 10);
            r.stats.l2 = double(rng() % 500);
        }
        records.push_back(r);
    }
    using F = analysis::StatField;
    using V = LinePoints::Value;
    for (XAxisMode mode : {XAxisMode::Gstep, XAxisMode::Lstep, XAxisMode::WallTime})
        for (int field = 0; field <= int(F::L2) + 2; ++field) {
            const V v = field <= int(F::L2)       ? V::Stat
                        : field == int(F::L2) + 1 ? V::MeanMinusStd
                                                  : V::MeanPlusStd;
            const F f = v == V::Stat ? F(field) : F::Mean;
            const LinePoints line(records, mode, 5.0, v, f);
            SCOPED_TRACE(std::to_string(int(mode)) + " " + std::to_string(field));
            ASSERT_EQ(line.size(), records.size());
            std::vector<double> xs, ys;
            for (std::size_t i = 0; i < records.size(); ++i) {
                const auto& r = records[i];
                const double want = v == V::Stat
                                        ? analysis::statValue(r.stats, f).value_or(std::nan(""))
                                    : !r.stats.hasFinite() ? std::nan("")
                                    : v == V::MeanMinusStd ? r.stats.mean - r.stats.std
                                                           : r.stats.mean + r.stats.std;
                ASSERT_EQ(line.x(i), xOf(r, mode) - 5.0) << i;
                if (std::isnan(want))
                    ASSERT_TRUE(std::isnan(line.y(i))) << i;
                else
                    ASSERT_EQ(line.y(i), want) << i;
                xs.push_back(line.x(i));
                ys.push_back(line.y(i));
            }
            // Ranges across the chunks read as point by point.
            std::vector<double> got(1100);
            line.readY(300, got.size(), got.data());
            for (std::size_t i = 0; i < got.size(); ++i)
                ASSERT_TRUE(got[i] == ys[300 + i] ||
                            (std::isnan(got[i]) && std::isnan(ys[300 + i])));
            line.readX(300, got.size(), got.data());
            ASSERT_TRUE(std::equal(got.begin(), got.end(), xs.begin() + 300));
            // The points with a value, and their decimation through the line's blocks.
            const XYSeries copy = line.copy();
            ASSERT_EQ(copy.x.size(), std::size_t(std::count_if(ys.begin(), ys.end(), [](double y) {
                          return !std::isnan(y);
                      })));
            const BlockExtrema blocks = blockExtrema(line);
            for (std::size_t buckets : {3u, 100u, 1000u}) {
                const XYSeries d = decimateMinMax(line, 0, line.size(), buckets, blocks);
                const XYSeries want = referenceDecimation(xs, ys, buckets);
                ASSERT_EQ(d.x, want.x);
                ASSERT_EQ(d.y, want.y);
            }
        }
}

// The blocks found for several lines at once are those of each line found alone.
void expectEachLinesOwn(std::span<const LinePoints* const> lines,
                        const std::vector<std::shared_ptr<const BlockExtrema>>& all) {
    ASSERT_EQ(all.size(), lines.size());
    for (std::size_t l = 0; l < lines.size(); ++l) {
        const BlockExtrema one = blockExtrema(*lines[l]);
        EXPECT_EQ(all[l]->lowest, one.lowest) << l;
        EXPECT_EQ(all[l]->highest, one.highest) << l;
        EXPECT_EQ(all[l]->low, one.low) << l;
        EXPECT_EQ(all[l]->high, one.high) << l;
        EXPECT_EQ(all[l]->maxX, one.maxX) << l;
    }
}

TEST(SeriesMath, BlockExtremaOfSeveralLinesAreEachLinesOwn) {
    // Lines that share their x (one series), one with y of its own, one of its own points and
    // of another length.
    analysis::RecordSeries records;
    for (std::size_t i = 0; i < 1000; ++i) {
        analysis::RecordStats r;
        r.gstep = std::int64_t(i);
        r.stats.count = r.stats.finite = 1;
        r.stats.min = -double(i % 37);
        r.stats.max = double(i % 53);
        r.stats.mean = std::sin(double(i));
        records.push_back(r);
    }
    using F = analysis::StatField;
    const LinePoints mean(records, XAxisMode::Gstep, 0, LinePoints::Value::Stat, F::Mean);
    const LinePoints min(records, XAxisMode::Gstep, 0, LinePoints::Value::Stat, F::Min);
    const LinePoints shifted(records, XAxisMode::Gstep, 7, LinePoints::Value::Stat, F::Max);
    std::vector<double> y(1000);
    for (std::size_t i = 0; i < y.size(); ++i)
        y[i] = double((i * 7919) % 1000);
    const LinePoints own = mean.withY(y);
    XYSeries points;
    for (std::size_t i = 0; i < 300; ++i) {
        points.x.push_back(double(i) * 0.5);
        points.y.push_back(std::cos(double(i)));
    }
    const LinePoints owned(points);
    const LinePoints* lines[] = {&mean, &owned, &min, &shifted, &own};
    const auto all = blockExtrema(lines);
    ASSERT_EQ(all.size(), 5u);
    expectEachLinesOwn(lines, all);
    for (std::size_t l = 0; l < 5; ++l) {
        for (std::size_t k = 0; k < l; ++k)
            EXPECT_NE(all[l], all[k]) << l << " " << k; // no two lines are equal
    }
    EXPECT_EQ(all[3]->maxX.front(), 63 - 7); // its own x, not the shared one
    EXPECT_EQ(own.y(5), y[5]);
    EXPECT_EQ(own.x(5), 5);
}

TEST(SeriesMath, LinesWithEqualPointsShareTheirBlockExtrema) {
    // A scalar's series: min, max and mean are one value and std is 0, so the min-max band, the
    // std band and the mean are one line. l2 is the absolute value: equal only while it is
    // positive, which ends after more points than one stretch of the parallel pass holds.
    // Lines of the same values at another x shift are not equal.
    constexpr std::size_t kPoints = 300000, kSignFlip = 280000;
    analysis::RecordSeries records;
    for (std::size_t i = 0; i < kPoints; ++i) {
        analysis::RecordStats r;
        r.gstep = std::int64_t(i);
        r.stats.count = r.stats.finite = 1;
        const double v = (i < kSignFlip ? 1 : -1) * (1.5 + std::sin(double(i) * 0.001));
        r.stats.min = r.stats.max = r.stats.mean = v;
        r.stats.l2 = std::abs(v);
        records.push_back(r);
    }
    using F = analysis::StatField;
    using V = LinePoints::Value;
    const LinePoints mean(records, XAxisMode::Gstep, 0, V::Stat, F::Mean);
    const LinePoints min(records, XAxisMode::Gstep, 0, V::Stat, F::Min);
    const LinePoints low(records, XAxisMode::Gstep, 0, V::MeanMinusStd);
    const LinePoints l2(records, XAxisMode::Gstep, 0, V::Stat, F::L2);
    const LinePoints high(records, XAxisMode::Gstep, 0, V::MeanPlusStd);
    const LinePoints shifted(records, XAxisMode::Gstep, 3, V::Stat, F::Max);
    const LinePoints max(records, XAxisMode::Gstep, 3, V::Stat, F::Max);
    const LinePoints* lines[] = {&mean, &min, &low, &l2, &high, &shifted, &max};
    const auto all = blockExtrema(lines);
    ASSERT_EQ(all.size(), 7u);
    EXPECT_EQ(all[1], all[0]);
    EXPECT_EQ(all[2], all[0]);
    EXPECT_NE(all[3], all[0]); // equal to the mean over the first 280 000 points only
    EXPECT_EQ(all[4], all[0]);
    EXPECT_NE(all[5], all[0]);
    EXPECT_EQ(all[6], all[5]);
    expectEachLinesOwn(lines, all);
    EXPECT_EQ(all[5]->maxX.front(), 63 - 3);
    EXPECT_EQ(all[3]->low.back(), all[0]->high.back() * -1);
}

TEST(SeriesMath, DebiasedEma) {
    const auto e = emaDebiased({2, 2, 2, std::nan(""), 2}, 0.9);
    EXPECT_DOUBLE_EQ(e[0], 2); // bias correction: a constant stays constant
    EXPECT_NEAR(e[2], 2, 1e-12);
    EXPECT_TRUE(std::isnan(e[3]));
    EXPECT_NEAR(e[4], 2, 1e-12);
    const auto f = emaDebiased({0, 10}, 0.5);
    EXPECT_DOUBLE_EQ(f[1], (0.5 * 0 * 0.5 + 0.5 * 10) / (1 - 0.25));
}

TEST(SeriesMath, VisibleSliceKeepsOneNeighbourOnEachSide) {
    const XYSeries s{{0, 1, 2, 3, 4, 5}, {10, 11, 12, 13, 14, 15}};
    auto vec = [](std::span<const double> v) { return std::vector<double>(v.begin(), v.end()); };
    const SeriesSpan v = visibleSlice(s, 2, 3);
    EXPECT_EQ(vec(v.x), (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(vec(v.y), (std::vector<double>{11, 12, 13, 14}));
    EXPECT_EQ(v.x.data(), s.x.data() + 1);            // a view, not a copy
    EXPECT_EQ(vec(visibleSlice(s, -10, 100).x), s.x); // all of it, nothing beyond
    EXPECT_EQ(vec(visibleSlice(s, 7, 9).x), (std::vector<double>{5}));
}

TEST(SeriesMath, AFitShowsEveryDrawablePointAndDecimatesEachLineOnce) {
    // NaN y at the ends, and x <= 0 or y <= 0 where a log axis cannot show them.
    const double nan = std::nan("");
    const LinePoints a(XYSeries{{-2, -1, 0, 1, 2, 3}, {nan, 5, 6, -1, 8, nan}});
    const LinePoints b(XYSeries{{4, 5}, {1, 2}});
    const std::vector<const LinePoints*> both{&a, &b}, one{&a};
    EXPECT_EQ(fitXRange(both, false, false), std::pair(-1.0, 5.0));
    EXPECT_EQ(fitXRange(one, false, false), std::pair(-1.0, 2.0));
    EXPECT_EQ(fitXRange(one, true, false), std::pair(1 / 1.1, 2 * 1.1)); // x > 0 only
    EXPECT_EQ(fitXRange(one, false, true), std::pair(-1.0, 2.0));        // y > 0 only
    const LinePoints single(XYSeries{{3}, {1}});
    EXPECT_EQ(fitXRange(std::vector{&single}, false, false), std::pair(2.5, 3.5));
    const LinePoints none(XYSeries{{1, 2}, {nan, nan}});
    EXPECT_FALSE(fitXRange(std::vector{&none}, false, false));

    // A band (lower and upper edge) and a line over the same points: each line as decimateMinMax
    // gives it through its blocks, the edges in half the buckets.
    std::vector<double> x(100000), y(100000);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = double(i), y[i] = std::sin(double(i) * 1e-3) + (i == 777 ? 9 : 0);
    const LinePoints line(XYSeries{x, y});
    const auto blocks = blockExtrema(line);
    const std::vector<LineToDecimate> lines{{&line, &blocks, true, false, Keep::Both},
                                            {&line, &blocks, false, false, Keep::Lowest},
                                            {&line, &blocks, false, false, Keep::Highest}};
    const DecimatedView view{0, 99999, 400, false, false};
    const auto points = decimateLines(lines, view);
    ASSERT_EQ(points.size(), 3u);
    const auto [first, last] = visibleRange(line, 0, 99999);
    for (std::size_t i = 0; i < 3; ++i) {
        const std::size_t buckets = i == 0 ? 400 : 200;
        const auto ends = bucketEnds(line, first, last, buckets, blocks);
        const XYSeries want = decimateMinMax(line, first, last, ends, blocks, lines[i].keep);
        EXPECT_TRUE(sameValues(points[i].x, want.x)) << i;
        EXPECT_TRUE(sameValues(points[i].y, want.y)) << i;
    }
    EXPECT_EQ(*std::max_element(points[0].y.begin(), points[0].y.end()), y[777]);
}

} // namespace
} // namespace xt::view
