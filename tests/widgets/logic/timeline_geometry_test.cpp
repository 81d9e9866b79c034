// The timeline view's geometry without Qt or a QApplication: time <-> pixel mapping, zoom at an
// anchor and clamping, ruler steps and labels, hit testing of LOD items, and the layout of a
// corpus trace (processes, tracks and counters in order, collapsing, pinning).
#include "core/timeline/chrome_trace_reader.h"
#include "widgets/logic/timeline_geometry.h"

#include "shared_corpus.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xt::view {
namespace {

using timeline::kNoIndex;
using timeline::LodItem;

std::string corpus(const char* rel) {
    return xt::test::chromeCorpus(rel);
}

TEST(TimeAxis, MapsTimeToPixelsAndBack) {
    TimeAxis a;
    a.setWidth(1000);
    a.setSpan(5'000'000, 15'000'000); // 10 ms
    a.setWindow(5'000'000, 15'000'000);
    EXPECT_EQ(a.t0(), 5'000'000);
    EXPECT_EQ(a.duration(), 10'000'000);
    EXPECT_DOUBLE_EQ(a.toPx(5'000'000), 0);
    EXPECT_DOUBLE_EQ(a.toPx(10'000'000), 500);
    EXPECT_DOUBLE_EQ(a.toPx(15'000'000), 1000);
    EXPECT_EQ(a.toTime(250), 7'500'000);
    for (double x : {0.0, 1.5, 333.0, 999.0})
        EXPECT_NEAR(a.toPx(a.toTime(x)), x, 1e-6);
    // Fit all includes a margin of 2% on both sides.
    a.fitAll();
    EXPECT_EQ(a.t0(), 5'000'000 - 200'000);
    EXPECT_EQ(a.t1(), 15'000'000 + 200'000);
}

TEST(TimeAxis, ZoomKeepsTheAnchorAndClamps) {
    TimeAxis a;
    a.setWidth(1600);
    a.setSpan(0, 1'000'000'000);
    a.fitAll();
    for (double anchor : {0.0, 400.0, 1234.0, 1600.0}) {
        a.fitAll();
        const std::int64_t before = a.toTime(anchor);
        for (int i = 0; i < 10; ++i) {
            const std::int64_t d = a.duration();
            a.zoomAt(anchor, 2.0);
            EXPECT_NEAR(double(a.duration()), d / 2.0, 1.0);
            // The time under the anchor stays within one nanosecond per zoom step.
            EXPECT_NEAR(double(a.toTime(anchor)), double(before), 1.0 + i);
        }
    }
    // Never below the minimum window, never beyond the span and its margin.
    for (int i = 0; i < 100; ++i)
        a.zoomAt(800, 2.0);
    EXPECT_EQ(a.duration(), TimeAxis::kMinWindowNs);
    for (int i = 0; i < 100; ++i)
        a.zoomAt(800, 0.5);
    EXPECT_EQ(a.t0(), a.limitBegin());
    EXPECT_EQ(a.t1(), a.limitEnd());
    a.zoomAt(800, 4);
    a.panPx(1e9);
    EXPECT_EQ(a.t0(), a.limitBegin());
    a.panPx(-1e9);
    EXPECT_EQ(a.t1(), a.limitEnd());
    const std::int64_t d = a.duration();
    a.centerOn(500'000'000);
    EXPECT_EQ(a.duration(), d);
    EXPECT_NEAR(double(a.t0() + a.duration() / 2), 5e8, 1);
}

TEST(Ruler, StepsAndLabels) {
    EXPECT_EQ(rulerStep(1'000'000, 1000, 90), 100'000);
    EXPECT_EQ(rulerStep(1'000'000, 1000, 110), 200'000);
    EXPECT_EQ(rulerStep(1'000'000, 1000, 300), 500'000);
    EXPECT_EQ(rulerStep(1'000, 1000, 90), 100);
    EXPECT_EQ(formatDuration(1'500'000), "1.5 ms");
    EXPECT_EQ(formatDuration(250), "250 ns");
    EXPECT_EQ(formatDuration(2'000'000'000), "2 s");
    EXPECT_EQ(formatDuration(-3'250), "-3.25 us");

    TimeAxis a;
    a.setWidth(1000);
    a.setSpan(1'000'000'000, 1'010'000'000);
    a.setWindow(1'000'000'000, 1'005'000'000); // 5 ms
    const auto ticks = rulerTicks(a, 1'000'000'000, 90);
    std::vector<std::string> labels;
    for (const auto& t : ticks) {
        EXPECT_GE(t.t, a.t0());
        EXPECT_LE(t.t, a.t1());
        EXPECT_NEAR(t.x, a.toPx(t.t), 1e-9);
        if (t.major) labels.push_back(t.label);
    }
    EXPECT_EQ(labels,
              (std::vector<std::string>{"0 ms", "0.5 ms", "1 ms", "1.5 ms", "2 ms", "2.5 ms",
                                        "3 ms", "3.5 ms", "4 ms", "4.5 ms", "5 ms"}));
    EXPECT_GT(ticks.size(), std::size_t(labels.size())); // minor ticks between
    // Microsecond windows far from the origin keep exact labels.
    a.setWindow(1'003'000'000, 1'003'001'000);
    bool sawExact = false;
    for (const auto& t : rulerTicks(a, 1'000'000'000, 90))
        if (t.major && t.label == "3.0002 ms") sawExact = true;
    EXPECT_TRUE(sawExact);
}

TEST(HitTest, ItemsUnderThePointerWithTolerance) {
    TimeAxis a;
    a.setWidth(1000);
    a.setSpan(0, 1000);
    a.setWindow(0, 1000);
    const std::vector<LodItem> items = {
        {0, 100, 7, 1, 0}, {200, 300, 8, 1, 0}, {500, 501, 9, 1, 0}, {0, 900, kNoIndex, 40, 1}};
    EXPECT_EQ(hitTestItems(items, 0, a, 0, 50, 3), 0);
    EXPECT_EQ(hitTestItems(items, 0, a, 0, 102, 3), 0); // within the tolerance
    EXPECT_EQ(hitTestItems(items, 0, a, 0, 150, 3), -1);
    EXPECT_EQ(hitTestItems(items, 0, a, 0, 502.5, 3), 2); // a one-pixel slice is still hit
    EXPECT_EQ(hitTestItems(items, 1, a, 0, 450, 3), 3);
    EXPECT_EQ(hitTestItems(items, 2, a, 0, 450, 3), -1);
    // With an offset the items move right.
    EXPECT_EQ(hitTestItems(items, 0, a, 100, 150, 3), 0);
}

TEST(Layout, ProcessesTracksAndCountersInOrder) {
    XT_REQUIRE_SHARED_CORPUS();
    // Threads, counters, flows.
    auto store = timeline::importChromeTrace(corpus("tf-timeline/seasonyc__timeline.tf.json"));
    ASSERT_TRUE(store.isOk()) << store.status().toString();
    const auto& s = *store;
    LayoutInput in{&s, {}, {}};
    const LayoutMetrics m;
    TimelineLayout l = buildLayout({&in, 1}, m, false);
    int y = 0, tracks = 0, counters = 0;
    for (const auto& r : l.scrolled) {
        EXPECT_EQ(r.y, y);
        y += r.height;
        tracks += r.kind == RowKind::Track;
        counters += r.kind == RowKind::Counter;
        if (r.kind == RowKind::Track)
            EXPECT_EQ(r.height, (s.tracks()[r.index].maxDepth + 1) * m.sliceRow + m.trackGap);
    }
    EXPECT_EQ(l.scrolledHeight, y);
    EXPECT_EQ(tracks, int(s.tracks().size()));
    EXPECT_EQ(counters, int(s.counters().size()));
    // Processes follow sortIndex, then pid.
    std::vector<std::uint32_t> procs;
    for (const auto& r : l.scrolled)
        if (r.kind == RowKind::Process) procs.push_back(r.process);
    // In processOrder's order, every process with a track or a counter present.
    const auto order = processOrder(s);
    std::vector<std::uint32_t> expected;
    for (std::uint32_t p : order) {
        bool drawn = false;
        for (const auto& t : s.tracks())
            drawn |= t.process == p;
        for (const auto& c : s.counters())
            drawn |= c.process == p;
        if (drawn) expected.push_back(p);
    }
    EXPECT_EQ(procs, expected);
    for (std::size_t i = 1; i < procs.size(); ++i)
        EXPECT_LE(s.processes()[procs[i - 1]].sortIndex, s.processes()[procs[i]].sortIndex);
    // Collapsing hides the tracks; pinning moves one to the pinned area.
    in.collapsed.insert(s.tracks()[0].process);
    in.pinned.insert(0);
    l = buildLayout({&in, 1}, m, false);
    ASSERT_EQ(l.pinned.size(), 1u);
    EXPECT_EQ(l.pinned[0].index, 0u);
    for (const auto& r : l.scrolled)
        if (r.kind == RowKind::Track) EXPECT_NE(s.tracks()[r.index].process, s.tracks()[0].process);
}

} // namespace
} // namespace xt::view
