// Slice search without Qt: the hits equal a brute-force scan (ASCII case folded, other bytes
// exact), ordered by layer then start across tracks; an empty needle finds nothing; progress
// rises to its total; a cancel while scanning or while ordering stops with Cancelled.
#include "chrome_json.h"
#include "core/timeline/chrome_trace_reader.h"
#include "widgets/logic/slice_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace xt::view {
namespace {

using xt::timeline::test::importJson;

using timeline::TraceStore;

// `n` X slices over `threads` threads, names cycling through `names`, interleaved in time
// across the threads so the hits of one name come from every track.
TraceStore generated(int n, int threads, const std::vector<std::string>& names) {
    std::string json = "[";
    for (int i = 0; i < n; ++i) {
        if (i) json += ',';
        json += R"({"ph":"X","pid":1,"tid":)" + std::to_string(i % threads) + R"(,"ts":)" +
                std::to_string(i) + R"(,"dur":0.5,"name":")" +
                names[std::size_t(i) % names.size()] + "\"}";
    }
    return importJson(json + "]");
}

char lower(char c) {
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

// The reference: fold both to ASCII lower case and use std::string::find.
std::vector<SliceHit> bruteForce(const std::vector<const TraceStore*>& layers,
                                 const std::string& needle) {
    std::string n = needle;
    std::transform(n.begin(), n.end(), n.begin(), lower);
    std::vector<SliceHit> out;
    for (std::uint32_t li = 0; li < layers.size(); ++li) {
        const TraceStore& s = *layers[li];
        std::vector<SliceHit> layer;
        for (std::uint32_t i = 0; i < s.sliceCount(); ++i) {
            std::string name(s.str(s.sliceName()[i]));
            std::transform(name.begin(), name.end(), name.begin(), lower);
            if (name.find(n) != std::string::npos) layer.push_back({li, i});
        }
        const auto starts = s.sliceStart();
        std::stable_sort(layer.begin(), layer.end(),
                         [&](SliceHit a, SliceHit b) { return starts[a.slice] < starts[b.slice]; });
        out.insert(out.end(), layer.begin(), layer.end());
    }
    return out;
}

TEST(SliceSearch, ContainsIgnoreCaseFoldsAsciiOnly) {
    EXPECT_TRUE(containsIgnoreCase("aten::Conv2d", "CONV"));
    EXPECT_TRUE(containsIgnoreCase("abc", ""));
    EXPECT_TRUE(containsIgnoreCase("xxabab", "abab"));
    EXPECT_FALSE(containsIgnoreCase("ab", "abc"));
    EXPECT_FALSE(containsIgnoreCase("relu", "conv"));
    EXPECT_FALSE(containsIgnoreCase("Größe", "GRÖ")); // Ö and ö differ as bytes
    EXPECT_TRUE(containsIgnoreCase("Größe", "gRö"));
}

TEST(SliceSearch, HitsEqualABruteForceScanInLayerThenStartOrder) {
    const TraceStore a = importJson(R"([
      {"ph":"X","name":"aten::conv2d","pid":1,"tid":1,"ts":10,"dur":50},
      {"ph":"X","name":"Conv_Backward","pid":1,"tid":1,"ts":20,"dur":5},
      {"ph":"X","name":"relu","pid":1,"tid":1,"ts":70,"dur":5},
      {"ph":"X","name":"CONV","pid":1,"tid":2,"ts":0,"dur":5},
      {"ph":"X","name":"conv","pid":1,"tid":2,"ts":20,"dur":5},
      {"ph":"X","name":"Größe conv","pid":2,"tid":3,"ts":15,"dur":5}
    ])");
    const TraceStore b = importJson(R"([
      {"ph":"X","name":"xconvx","pid":1,"tid":1,"ts":5,"dur":1},
      {"ph":"X","name":"other","pid":1,"tid":1,"ts":6,"dur":1}
    ])");
    const std::vector<const TraceStore*> layers{&a, &b};
    for (const char* needle : {"conv", "CONV", "Conv_b", "ö", "relu", "missing", "e"}) {
        auto hits = findSlices(layers, needle);
        ASSERT_TRUE(hits.isOk());
        EXPECT_EQ(*hits, bruteForce(layers, needle)) << needle;
    }
    auto conv = findSlices(layers, "conv");
    ASSERT_TRUE(conv.isOk());
    ASSERT_EQ(conv->size(), 6u); // five in layer 0, one in layer 1
    EXPECT_EQ(conv->back().layer, 1u);
    // Layer 0 by start across its tracks: CONV (0), aten::conv2d (10), Größe (15), then the
    // two at 20 in slice order.
    std::vector<std::string> names;
    for (std::size_t i = 0; i < 5; ++i)
        names.emplace_back(a.str(a.sliceName()[(*conv)[i].slice]));
    EXPECT_EQ(names[0], "CONV");
    EXPECT_EQ(names[1], "aten::conv2d");
    EXPECT_EQ(names[2], "Größe conv");
    EXPECT_TRUE(findSlices(layers, "")->empty());
}

TEST(SliceSearch, ManyTracksAndChunksMatchTheBruteForceOrder) {
    const TraceStore s = generated(300'000, 7, {"forward", "aten::mm", "Backward", "mm_out"});
    const std::vector<const TraceStore*> layers{&s};
    for (const char* needle : {"mm", "WARD", "forward"}) {
        std::uint64_t last = 0, total = 0;
        int reports = 0;
        bool monotone = true;
        auto hits = findSlices(layers, needle, [&](const ProgressReport& r) {
            monotone = monotone && r.done >= last && (total == 0 || r.total == total);
            last = r.done;
            total = r.total;
            ++reports;
            return true;
        });
        ASSERT_TRUE(hits.isOk());
        EXPECT_EQ(*hits, bruteForce(layers, needle)) << needle;
        EXPECT_TRUE(monotone);
        EXPECT_EQ(last, total);
        EXPECT_GT(reports, 4); // 300K slices are scanned in several chunks
    }
}

TEST(SliceSearch, CancelWhileScanningOrOrderingStops) {
    const TraceStore s = generated(300'000, 5, {"aten::add", "aten::mul"});
    const std::vector<const TraceStore*> layers{&s};
    // The first report already cancels.
    auto first = findSlices(layers, "aten", [](const ProgressReport&) { return false; });
    ASSERT_FALSE(first.isOk());
    EXPECT_EQ(first.status().code(), ErrorCode::Cancelled);
    // A quarter of the way through the scan.
    auto scan = findSlices(layers, "aten", [](const ProgressReport& r) {
        return !(r.stage == "searching" && r.done > r.total / 4);
    });
    ASSERT_FALSE(scan.isOk());
    EXPECT_EQ(scan.status().code(), ErrorCode::Cancelled);
    // While ordering the hits of five tracks.
    bool ordering = false;
    auto order = findSlices(layers, "aten", [&](const ProgressReport& r) {
        ordering = ordering || r.stage == "ordering";
        return r.stage != "ordering";
    });
    EXPECT_TRUE(ordering);
    ASSERT_FALSE(order.isOk());
    EXPECT_EQ(order.status().code(), ErrorCode::Cancelled);
}

} // namespace
} // namespace xt::view
