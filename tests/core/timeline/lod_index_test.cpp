// LOD bucketing on hand-made rows: tiny slices fold, wide slices never disappear, output size
// is bounded by the pixel width, and the index splits tracks into non-overlapping rows; its
// coarse rows count every slice, keep long ones, and fold like the full rows when zoomed out.
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/lod_index.h"
#include "shared_corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>

using namespace xt::timeline;

namespace {
struct Row {
    std::vector<std::int64_t> starts, durs;
    std::vector<std::uint32_t> ids;
    void add(std::int64_t s, std::int64_t d) {
        ids.push_back(static_cast<std::uint32_t>(starts.size()));
        starts.push_back(s);
        durs.push_back(d);
    }
    std::vector<LodItem> query(std::int64_t t0, std::int64_t t1, double px) const {
        std::vector<LodItem> out;
        foldRow(ids, starts, durs, 0, LodQuery{t0, t1, px, 1.0}, out);
        return out;
    }
};
} // namespace

TEST(LodIndex, WideSlicesAreReturnedOneByOne) {
    Row r;
    r.add(0, 100);
    r.add(100, 100);
    r.add(300, 50);
    auto out = r.query(0, 1000, 100); // 10 ns per pixel
    ASSERT_EQ(out.size(), 3u);
    for (std::uint32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(out[i].slice, i);
        EXPECT_EQ(out[i].count, 1u);
    }
    // Window clipping: only what overlaps [120, 310).
    out = r.query(120, 310, 100);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].slice, 1u);
    EXPECT_EQ(out[1].slice, 2u);
}

TEST(LodIndex, TinySlicesFoldButLongOnesSurvive) {
    Row r;
    for (int i = 0; i < 1000; ++i)
        r.add(i * 10, 5); // 1000 tiny slices over [0, 10000)
    r.add(10000, 50000);  // one long slice right after
    for (int i = 0; i < 1000; ++i)
        r.add(60000 + i * 10, 5);
    auto out = r.query(0, 100000, 100); // 1000 ns per pixel
    std::uint64_t covered = 0;
    bool longSeen = false;
    for (const auto& it : out) {
        covered += it.count;
        if (it.slice == 1000u) longSeen = true;
        if (it.folded()) EXPECT_GT(it.count, 1u);
    }
    EXPECT_TRUE(longSeen);
    EXPECT_EQ(covered, 2001u); // every slice accounted for exactly once
    EXPECT_LE(out.size(), 2u * 100u + 1u);
    // Items come in time order and do not overlap.
    for (std::size_t i = 1; i < out.size(); ++i)
        EXPECT_LE(out[i - 1].end, out[i].start);
}

TEST(LodIndex, FoldedBlockSpansItsSlices) {
    Row r;
    r.add(0, 1);
    r.add(2, 1);
    r.add(4, 1);
    auto out = r.query(0, 1000, 10); // 100 ns per pixel: all three in one block
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(out[0].folded());
    EXPECT_EQ(out[0].count, 3u);
    EXPECT_EQ(out[0].start, 0);
    EXPECT_EQ(out[0].end, 5);
    // Zoomed in, the same slices are separate.
    out = r.query(0, 10, 1000);
    ASSERT_EQ(out.size(), 3u);
}

TEST(LodIndex, EmptyAndDegenerateWindows) {
    Row r;
    r.add(0, 10);
    EXPECT_TRUE(r.query(5, 5, 100).empty());
    EXPECT_TRUE(r.query(20, 30, 100).empty());
    EXPECT_TRUE(r.query(0, 10, 0).empty());
    Row empty;
    EXPECT_TRUE(empty.query(0, 10, 100).empty());
}

TEST(LodIndex, BuildsRowsPerDepth) {
    auto r = importChromeTraceBytes(R"([
      {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","name":"b","pid":1,"tid":1,"ts":10,"dur":10},
      {"ph":"X","name":"c","pid":1,"tid":1,"ts":30,"dur":10},
      {"ph":"X","name":"d","pid":1,"tid":1,"ts":35,"dur":1},
      {"ph":"X","name":"e","pid":1,"tid":2,"ts":0,"dur":1}
    ])");
    ASSERT_TRUE(r.isOk());
    const TraceStore& st = *r;
    const LodIndex idx = LodIndex::build(st);
    ASSERT_EQ(st.tracks().size(), 2u);
    EXPECT_EQ(idx.rowCount(0), 3u);
    EXPECT_EQ(idx.rowCount(1), 1u);
    std::vector<LodItem> out;
    idx.query(st, 0, LodQuery{0, 200'000, 200, 1.0}, out);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].depth, 0);
    EXPECT_EQ(out[1].depth, 1);
    EXPECT_EQ(out[2].depth, 1);
    EXPECT_EQ(out[3].depth, 2);
    for (const LodItem& it : out) {
        ASSERT_FALSE(it.folded());
        EXPECT_EQ(it.start, st.sliceStart()[it.slice]);
        EXPECT_EQ(it.end, st.sliceEnd(it.slice));
    }
    out.clear();
    idx.query(st, 0, LodQuery{25'000, 32'000, 100, 1.0}, out); // only a and c overlap
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(st.str(st.sliceName()[out[1].slice]), "c");
}

TEST(LodIndex, CoarseRowsKeepLongSlicesAndCountEverySlice) {
    // One row of 4000 slices of 1 us every 2 us, a 1 ms slice in the middle, and a nested row.
    std::string json = "[";
    for (int i = 0; i < 4000; ++i) {
        const int ts = i < 2000 ? i * 2 : 1000 + i * 2;
        json += (i ? "," : "") + std::string(R"({"ph":"X","name":"s","pid":1,"tid":1,"ts":)") +
                std::to_string(ts) + R"(,"dur":1})";
    }
    json += R"(,{"ph":"X","name":"long","pid":1,"tid":1,"ts":4000,"dur":1000})";
    json += R"(,{"ph":"X","name":"kid","pid":1,"tid":1,"ts":4100,"dur":10}])";
    auto r = importChromeTraceBytes(json);
    ASSERT_TRUE(r.isOk()) << r.status().toString();
    const TraceStore& st = *r;
    const LodIndex idx = LodIndex::build(st, 100'000); // 100 us grain
    EXPECT_EQ(idx.grain(), 100'000);
    // Blocks of 50 short slices each side of the long slice, the long one, the kid: ~82.
    EXPECT_LT(idx.coarseEntries(), 100u);
    const LodQuery whole{st.beginTime(), st.endTime(), 100, 5.0}; // 450 us per fold width
    ASSERT_TRUE(idx.coarseCovers(whole));
    std::vector<LodItem> coarse, full;
    idx.query(st, 0, whole, coarse);
    idx.queryFull(st, 0, whole, full);
    auto represented = [](const std::vector<LodItem>& items) {
        std::uint64_t n = 0;
        for (const LodItem& it : items)
            n += it.count;
        return n;
    };
    EXPECT_EQ(represented(coarse), st.sliceCount());
    EXPECT_EQ(represented(full), st.sliceCount());
    // The long slice is drawn on its own by both levels.
    auto hasLong = [&](const std::vector<LodItem>& items) {
        return std::any_of(items.begin(), items.end(), [&](const LodItem& it) {
            return !it.folded() && st.str(st.sliceName()[it.slice]) == "long";
        });
    };
    EXPECT_TRUE(hasLong(coarse));
    EXPECT_TRUE(hasLong(full));
    // Zoomed in below four grains the full rows answer: every item is a real slice.
    const LodQuery near{4000'000, 4200'000, 1000, 1.0};
    EXPECT_FALSE(idx.coarseCovers(near));
    coarse.clear();
    idx.query(st, 0, near, coarse);
    for (const LodItem& it : coarse)
        EXPECT_FALSE(it.folded());
}

TEST(LodIndex, CoarseRowsFoldLikeTheFullRowsWhenZoomedOut) {
    XT_REQUIRE_SHARED_CORPUS();
    auto store = importChromeTrace(xt::test::chromeCorpus(
        "kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"));
    ASSERT_TRUE(store.isOk()) << store.status().toString();
    const TraceStore& s = *store;
    const LodIndex c = LodIndex::build(s);
    EXPECT_LT(c.coarseEntries(), s.sliceCount());
    const std::int64_t span = s.endTime() - s.beginTime();
    for (int zoom : {1, 3, 10}) {
        const std::int64_t w = span / zoom;
        const LodQuery q{s.beginTime() + (span - w) / 2, s.beginTime() + (span + w) / 2, 1400, 2.0};
        ASSERT_TRUE(c.coarseCovers(q)) << zoom;
        for (std::uint32_t t = 0; t < s.tracks().size(); ++t) {
            std::vector<LodItem> fine, coarse;
            c.queryFull(s, t, q, fine);
            c.query(s, t, q, coarse);
            std::uint64_t nf = 0, nc = 0;
            for (const auto& it : fine)
                nf += it.count;
            for (const auto& it : coarse) {
                nc += it.count;
                if (!it.folded()) {
                    // A single item is a real slice of this track, as wide as that slice.
                    EXPECT_EQ(s.sliceTrack()[it.slice], t);
                    EXPECT_EQ(it.start, s.sliceStart()[it.slice]);
                    EXPECT_EQ(it.end, s.sliceEnd(it.slice));
                    EXPECT_EQ(it.count, 1u);
                }
            }
            // The same slices are represented, give or take a block at each window edge.
            const std::uint64_t rows = s.tracks()[t].maxDepth + 1u;
            EXPECT_NEAR(double(nc), double(nf), double(rows * 2 * (s.sliceCount() / 65536 + 50)))
                << "track " << t << " zoom " << zoom;
            if (zoom == 1) EXPECT_EQ(nc, nf) << "track " << t; // the whole span: every slice
            // Far fewer entries to fold than slices when the track is dense.
            EXPECT_LE(coarse.size(), rows * (1400 / 2 + 2));
        }
    }
    // Zoomed in past four grains the full index is used.
    EXPECT_FALSE(c.coarseCovers({s.beginTime(), s.beginTime() + c.grain() * 100, 1400, 2.0}));
}
