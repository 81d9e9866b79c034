// RecordSeries: the per-record statistics of a key, shared between snapshots of a followed run.
#include "core/analysis/record_series.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using xt::analysis::RecordSeries;
using xt::analysis::RecordStats;

namespace {

RecordStats rec(std::size_t i) {
    RecordStats r;
    r.record = i;
    r.gstep = std::int64_t(i) * 10;
    r.lstep = std::int64_t(i);
    r.timestamp = std::int64_t(i) * 1000;
    r.stats.count = i + 1;
    return r;
}

void expectRecords(const RecordSeries& s, std::size_t n) {
    ASSERT_EQ(s.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(s[i].record, i) << i;
        ASSERT_EQ(s[i].gstep, std::int64_t(i) * 10) << i;
        ASSERT_EQ(s[i].stats.count, i + 1) << i;
    }
}

} // namespace

TEST(RecordSeries, AppendsAcrossChunkBoundariesAndReadsBackInOrder) {
    const std::size_t k = RecordSeries::kChunk;
    RecordSeries s;
    EXPECT_TRUE(s.empty());
    for (std::size_t n : {std::size_t(1), k - 1, k, k + 1, 3 * k + 7}) {
        s.clear();
        for (std::size_t i = 0; i < n; ++i)
            s.push_back(rec(i));
        expectRecords(s, n);
        EXPECT_EQ(s.front().record, 0u);
        EXPECT_EQ(s.back().record, n - 1);
        // Iterators walk the same records and support the random-access algorithms used on it.
        std::size_t i = 0;
        for (const RecordStats& r : s)
            ASSERT_EQ(r.record, i++);
        EXPECT_EQ(std::size_t(s.end() - s.begin()), n);
        const auto it =
            std::lower_bound(s.begin(), s.end(), std::int64_t(n / 2) * 10,
                             [](const RecordStats& r, std::int64_t g) { return r.gstep < g; });
        EXPECT_EQ(it->record, n / 2);
    }
}

TEST(RecordSeries, CopiesShareFullChunksAndDivergeOnlyInTheirTails) {
    const std::size_t k = RecordSeries::kChunk;
    RecordSeries a;
    for (std::size_t i = 0; i < 2 * k + 5; ++i)
        a.push_back(rec(i));
    EXPECT_EQ(a.sharedChunks(), 0u); // no other copy yet

    RecordSeries b = a;
    EXPECT_EQ(a.sharedChunks(), 2u);
    EXPECT_EQ(b.sharedChunks(), 2u);
    EXPECT_EQ(&a[0], &b[0]);         // the same chunk, not a copy of it
    EXPECT_NE(&a[2 * k], &b[2 * k]); // tails are each copy's own

    // Appending to one copy does not change the other.
    for (std::size_t i = 2 * k + 5; i < 3 * k + 1; ++i)
        b.push_back(rec(i));
    expectRecords(a, 2 * k + 5);
    expectRecords(b, 3 * k + 1);
    EXPECT_EQ(b.sharedChunks(), 2u); // its third chunk is its own

    RecordSeries c = b;
    EXPECT_EQ(b.sharedChunks(), 3u);
    a.clear();
    EXPECT_TRUE(a.empty());
    expectRecords(b, 3 * k + 1);
    expectRecords(c, 3 * k + 1);
}

TEST(RecordSeries, BuildsFromAnInitializerList) {
    const RecordSeries s{rec(0), rec(1), rec(2)};
    expectRecords(s, 3);
}

TEST(RecordSeries, CountsTheRecordsWithNaNOrInfAsTheyAreAdded) {
    RecordSeries s;
    for (std::size_t i = 0; i < 3 * RecordSeries::kChunk; ++i) {
        RecordStats r = rec(i);
        r.stats.nan = i % 100 == 7 ? 2 : 0;
        r.stats.inf = i % 250 == 3 ? 1 : 0;
        s.push_back(r);
    }
    const auto counted = std::count_if(
        s.begin(), s.end(), [](const RecordStats& r) { return r.stats.nan || r.stats.inf; });
    EXPECT_GT(counted, 10);
    EXPECT_EQ(s.nonFiniteRecords(), std::size_t(counted));
    const RecordSeries copy = s;
    EXPECT_EQ(copy.nonFiniteRecords(), std::size_t(counted));
    s.clear();
    EXPECT_EQ(s.nonFiniteRecords(), 0u);
    s.push_back(rec(1));
    EXPECT_EQ(s.nonFiniteRecords(), 0u);
}
