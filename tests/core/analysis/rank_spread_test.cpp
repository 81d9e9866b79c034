// The median across ranks with its min..max range, and outlier ranks by the median absolute
// deviation rule, over hand-made series with known outliers.
#include "core/analysis/rank_spread.h"

#include <cmath>
#include <gtest/gtest.h>

namespace xt::analysis {
namespace {

KeySeries series(int rank, const std::vector<double>& means, std::int64_t firstStep = 0) {
    KeySeries s;
    s.rank = rank;
    s.key = "w";
    for (std::size_t i = 0; i < means.size(); ++i) {
        RecordStats r;
        r.gstep = firstStep + std::int64_t(i);
        r.stats.count = r.stats.finite = 1;
        r.stats.mean = r.stats.min = r.stats.max = means[i];
        s.records.push_back(r);
    }
    return s;
}

std::vector<const KeySeries*> pointers(const std::vector<KeySeries>& v) {
    std::vector<const KeySeries*> out;
    for (const auto& s : v)
        out.push_back(&s);
    return out;
}

TEST(RankSpread, MedianMinMaxAndMadPerStep) {
    // Step 0: 1, 2, 3, 4, 100 -> median 3, MAD median(2, 1, 0, 1, 97) = 1.
    std::vector<KeySeries> s = {series(0, {1}), series(1, {2}), series(2, {3}), series(3, {4}),
                                series(4, {100})};
    const RankSpread r = rankSpread(pointers(s), StatField::Mean);
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].ranks, 5);
    EXPECT_DOUBLE_EQ(r.steps[0].median, 3);
    EXPECT_DOUBLE_EQ(r.steps[0].min, 1);
    EXPECT_DOUBLE_EQ(r.steps[0].max, 100);
    EXPECT_DOUBLE_EQ(r.steps[0].scale, 1.4826);
    EXPECT_DOUBLE_EQ(robustScore(100, r.steps[0]), 97 / 1.4826);
    // Only rank 4 is beyond 3.5 robust deviations (rank 0 is at 2 / 1.4826 = 1.35).
    ASSERT_EQ(r.outliers.size(), 1u);
    EXPECT_EQ(r.outliers[0].rank, 4);
    EXPECT_EQ(r.outliers[0].outlierSteps, 1);
    EXPECT_EQ(r.outliers[0].firstOutlierStep, 0);
}

TEST(RankSpread, EvenCountsTakeTheMiddlePair) {
    std::vector<KeySeries> s = {series(0, {1}), series(1, {2}), series(2, {4}), series(3, {10})};
    const RankSpread r = rankSpread(pointers(s), StatField::Mean);
    EXPECT_DOUBLE_EQ(r.steps[0].median, 3);
}

TEST(RankSpread, AStalledAndADivergingRankAmongSixteenAreFound) {
    // 16 ranks with a noisy falling curve over 200 steps; rank 5 stalls (stays at its first
    // value), rank 11 diverges from step 180 on (the last 10% of its steps), rank 3 has a single
    // spike (0.5% of its steps: not an outlier rank).
    std::vector<KeySeries> s;
    for (int rank = 0; rank < 16; ++rank) {
        std::vector<double> v;
        for (int g = 0; g < 200; ++g) {
            const double noise = 0.01 * std::sin(rank * 7.1 + g * 1.3);
            double x = 1.0 / (1 + 0.05 * g) + noise;
            if (rank == 5) x = 1.0;
            if (rank == 11 && g >= 180) x += 0.5 * (g - 179);
            if (rank == 3 && g == 50) x += 10;
            v.push_back(x);
        }
        s.push_back(series(rank, v));
    }
    const RankSpread r = rankSpread(pointers(s), StatField::Mean);
    ASSERT_EQ(r.steps.size(), 200u);
    ASSERT_EQ(r.outliers.size(), 2u);
    EXPECT_EQ(r.outliers[0].rank, 5); // almost every step
    EXPECT_GT(r.outliers[0].share(), 0.9);
    EXPECT_EQ(r.outliers[1].rank, 11);
    EXPECT_EQ(r.outliers[1].firstOutlierStep, 180);
    EXPECT_EQ(r.outliers[1].outlierSteps, 20);
    // The median ignores the outliers: at step 190 it is on the common curve.
    EXPECT_NEAR(r.steps[190].median, 1.0 / (1 + 0.05 * 190), 0.011);
    EXPECT_GT(r.steps[190].max, 5);
}

TEST(RankSpread, IdenticalRanksAndOneThatDiffersUseTheMeanDeviation) {
    // Weights replicated on 8 ranks: MAD is 0; the one rank that differs is an outlier, the
    // others are not.
    std::vector<KeySeries> s;
    for (int rank = 0; rank < 8; ++rank)
        s.push_back(series(rank, {0.5, 0.5, rank == 6 ? 0.5001 : 0.5}));
    const RankSpread r = rankSpread(pointers(s), StatField::Mean);
    EXPECT_DOUBLE_EQ(r.steps[0].scale, 0); // all equal
    EXPECT_GT(r.steps[2].scale, 0);
    ASSERT_EQ(r.outliers.size(), 1u);
    EXPECT_EQ(r.outliers[0].rank, 6);
    EXPECT_EQ(r.outliers[0].steps, 3);
    EXPECT_EQ(r.outliers[0].outlierSteps, 1); // 1 of 3 steps is more than 5%
}

TEST(RankSpread, TwoRanksHaveNoOutliersAndMissingValuesAreLeftOut) {
    std::vector<KeySeries> two = {series(0, {1, 2}), series(1, {100, 200})};
    EXPECT_TRUE(rankSpread(pointers(two), StatField::Mean).outliers.empty());

    // Rank 2 starts late; a record without finite values is not a value.
    std::vector<KeySeries> s = {series(0, {1, 1, 1}), series(1, {2, 2, 2}), series(2, {3}, 2)};
    std::vector<RecordStats> records(s[1].records.begin(), s[1].records.end());
    records[1].stats.finite = 0; // records are appended, never changed: rebuild the series
    s[1].records.clear();
    s[1].records.append(records.begin(), records.end());
    const RankSpread r = rankSpread(pointers(s), StatField::Mean);
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_EQ(r.steps[0].ranks, 2);
    EXPECT_EQ(r.steps[1].ranks, 1);
    EXPECT_EQ(r.steps[2].ranks, 3);
    EXPECT_DOUBLE_EQ(r.steps[2].median, 2);
}

TEST(RankSpread, TheLastRecordOfAStepCounts) {
    std::vector<KeySeries> s = {series(0, {1}), series(1, {2}), series(2, {3})};
    RecordStats again = s[2].records[0];
    again.stats.mean = 9;
    s[2].records.push_back(again); // rank 2 records gstep 0 twice
    const RankSpread r = rankSpread(pointers(s), StatField::Mean);
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].ranks, 3);
    EXPECT_DOUBLE_EQ(r.steps[0].max, 9);
}

TEST(RankSpread, TheRuleInWords) {
    EXPECT_EQ(describeOutlierRule({}),
              "outliers: |x - median| > 3.5 x 1.4826 MAD at >= 5% of steps");
}

} // namespace
} // namespace xt::analysis
