// The view's per-layer cache without Qt: instants grouped by scope and sorted by time, flows
// sorted by either end's start, counter ranges over finite values (and 0), slice density that
// counts every slice once; a cancel stops the build.
#include "chrome_json.h"
#include "core/timeline/chrome_trace_reader.h"
#include "widgets/logic/layer_cache.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

namespace xt::view {
namespace {

using xt::timeline::test::importJson;

using timeline::kNoIndex;
using timeline::TraceStore;

const char* kTrace = R"([
  {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},
  {"ph":"X","name":"a","pid":1,"tid":1,"ts":100,"dur":50},
  {"ph":"X","name":"b","pid":1,"tid":2,"ts":10,"dur":50},
  {"ph":"X","name":"c","pid":1,"tid":2,"ts":300,"dur":50},
  {"ph":"X","name":"d","pid":1,"tid":1,"ts":400,"dur":50},
  {"ph":"s","name":"f","cat":"c","id":1,"pid":1,"tid":1,"ts":110},
  {"ph":"f","bp":"e","name":"f","cat":"c","id":1,"pid":1,"tid":2,"ts":310},
  {"ph":"s","name":"f","cat":"c","id":2,"pid":1,"tid":2,"ts":20},
  {"ph":"f","bp":"e","name":"f","cat":"c","id":2,"pid":1,"tid":1,"ts":410},
  {"ph":"i","name":"t2","s":"t","pid":1,"tid":1,"ts":200},
  {"ph":"i","name":"t1","s":"t","pid":1,"tid":1,"ts":120},
  {"ph":"i","name":"p","s":"p","pid":1,"tid":1,"ts":130},
  {"ph":"i","name":"g2","s":"g","pid":1,"tid":1,"ts":440},
  {"ph":"i","name":"g1","s":"g","pid":1,"tid":1,"ts":5},
  {"ph":"C","name":"mem","pid":1,"ts":100,"args":{"bytes":5}},
  {"ph":"C","name":"mem","pid":1,"ts":200,"args":{"bytes":-2}},
  {"ph":"C","name":"mem","pid":1,"ts":300,"args":{"bytes":9}}
])";

TEST(LayerCache, GroupsAndSortsWhatTheViewDraws) {
    const TraceStore s = importJson(kTrace);
    auto built = buildLayerCache(s);
    ASSERT_TRUE(built.isOk());
    const LayerCache& c = *built;
    const auto inst = s.instants();
    auto names = [&](const std::vector<std::uint32_t>& ids) {
        std::string out;
        for (std::uint32_t i : ids)
            out += std::string(s.str(inst[i].name)) + " ";
        return out;
    };
    std::string threads;
    for (const auto& ids : c.instantsByThread)
        threads += names(ids);
    EXPECT_EQ(threads, "t1 t2 ");
    ASSERT_EQ(c.instantsByProcess.size(), s.processes().size());
    EXPECT_EQ(names(c.instantsByProcess[0]), "p ");
    EXPECT_EQ(names(c.globalInstants), "g1 g2 ");

    ASSERT_EQ(s.flows().size(), 2u);
    ASSERT_EQ(c.flowsByFrom.size(), 2u);
    const auto start = s.sliceStart();
    const auto flows = s.flows();
    EXPECT_LT(start[flows[c.flowsByFrom[0]].fromSlice], start[flows[c.flowsByFrom[1]].fromSlice]);
    EXPECT_LT(start[flows[c.flowsByTo[0]].toSlice], start[flows[c.flowsByTo[1]].toSlice]);
    EXPECT_NE(c.flowsByFrom[0], c.flowsByTo[0]); // b's flow starts first, a's ends first

    ASSERT_EQ(c.counterMin.size(), 1u);
    EXPECT_EQ(c.counterMin[0], -2);
    EXPECT_EQ(c.counterMax[0], 9);

    ASSERT_EQ(c.overview.size(), std::size_t(LayerCache::kOverviewBuckets));
    EXPECT_EQ(std::accumulate(c.overview.begin(), c.overview.end(), std::uint64_t(0)),
              s.sliceCount());
    // b (10 us) is the earliest slice: in a bucket before a's (100 us).
    const double perBucket = double(s.endTime() - s.beginTime() + 1) / LayerCache::kOverviewBuckets;
    EXPECT_EQ(c.overview[std::size_t(double(10'000 - s.beginTime()) / perBucket)], 1u);
}

TEST(LayerCache, DensityOfManySlicesAndCancel) {
    std::string json = "[";
    for (int i = 0; i < 200'000; ++i)
        json += std::string(i ? "," : "") + R"({"ph":"X","name":"x","pid":1,"tid":)" +
                std::to_string(i % 3) + R"(,"ts":)" + std::to_string(i) + R"(,"dur":0.5})";
    const TraceStore s = importJson(json + "]");
    int reports = 0;
    auto built = buildLayerCache(s, [&](const ProgressReport& r) {
        EXPECT_LE(r.done, r.total);
        ++reports;
        return true;
    });
    ASSERT_TRUE(built.isOk());
    EXPECT_GT(reports, 3);
    // Evenly spread starts: every bucket holds its share.
    for (std::uint32_t n : built->overview)
        EXPECT_NEAR(double(n), 200'000.0 / LayerCache::kOverviewBuckets, 2);
    auto cancelled =
        buildLayerCache(s, [](const ProgressReport& r) { return r.done < r.total / 2; });
    ASSERT_FALSE(cancelled.isOk());
    EXPECT_EQ(cancelled.status().code(), ErrorCode::Cancelled);
}

} // namespace
} // namespace xt::view
