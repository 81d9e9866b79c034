// The plots' series math without Qt: min/max decimation keeps spikes of a million points and
// passes small series through; the debiased EMA keeps a constant constant and skips NaN; the
// visible part of a series reaches the view's edges.
#include "widgets/logic/series_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
