// The plots' series math without Qt: min/max decimation keeps spikes of a million points and
// passes small series through; the debiased EMA keeps a constant constant and skips NaN; the
// visible part of a series reaches the view's edges.
#include "widgets/logic/series_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace xt::view {
namespace {

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
    // and without the line's block extrema, over the whole line and over a part of it.
    std::mt19937 rng(3);
    for (int trial = 0; trial < 50; ++trial) {
        const std::size_t n = 3000 + rng() % 20000;
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
        const BlockExtrema blocks = blockExtrema(x, y);
        for (std::size_t buckets : {1u, 7u, 200u, 1000u}) {
            SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(buckets));
            const XYSeries got = decimateMinMax(x, y, buckets);
            const XYSeries want = referenceDecimation(x, y, buckets);
            ASSERT_EQ(got.x, want.x);
            ASSERT_EQ(got.y, want.y);
            // The whole line and a part of it (as a visible slice is) through its blocks.
            const XYSeries whole = decimateMinMax(x, y, buckets, blocks, 0);
            ASSERT_EQ(whole.x, want.x);
            ASSERT_EQ(whole.y, want.y);
            const std::size_t first = rng() % (n / 3), count = n / 2 + rng() % (n - first - n / 2);
            const std::vector<double> px(x.begin() + first, x.begin() + first + count),
                py(y.begin() + first, y.begin() + first + count);
            const XYSeries part =
                decimateMinMax(std::span(x).subspan(first, count),
                               std::span(y).subspan(first, count), buckets, blocks, first);
            const XYSeries partWant = referenceDecimation(px, py, buckets);
            ASSERT_EQ(part.x, partWant.x);
            ASSERT_EQ(part.y, partWant.y);
        }
    }
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

} // namespace
} // namespace xt::view
