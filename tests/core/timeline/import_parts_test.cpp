// The parts of the Chrome importer on constructed events, without JSON: B/E matching and
// nesting, async lanes, flow binding, and the TraceStoreBuilder that joins them.
#include "core/base/diagnostic_codes.h"
#include "core/timeline/async_lane_tracker.h"
#include "core/timeline/flow_tracker.h"
#include "core/timeline/nesting_tracker.h"
#include "core/timeline/trace_store_builder.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

using namespace xt;
using namespace xt::timeline;

namespace {

struct Warned {
    std::string code;
    std::uint64_t offset, record;
};

struct WarnLog {
    std::vector<Warned> items;
    ImportWarn fn() {
        return [this](const DiagnosticCode& code, std::uint64_t offset, std::uint64_t record,
                      std::string) {
            items.push_back({code.name, offset, record});
        };
    }
    std::map<std::string, int> counts() const {
        std::map<std::string, int> c;
        for (const auto& w : items)
            ++c[w.code];
        return c;
    }
};

SliceRecord slice(std::int64_t start, std::int64_t dur, StringId name, std::uint32_t order) {
    SliceRecord s;
    s.start = start;
    s.dur = dur;
    s.name = name;
    s.order = order;
    return s;
}

} // namespace

TEST(NestingTracker, MatchesBeginsAndEndsInTimeOrderWithAStack) {
    NestingTracker t;
    // Given out of order: B(1) B(2) E(3) E(6) by time.
    t.end(6, 3, 60);
    t.begin(slice(1, 0, 1, 0), 10);
    t.end(3, 2, 30);
    t.begin(slice(2, 0, 2, 1), 20);
    WarnLog log;
    const auto out = t.takeSorted(100, log.fn());
    EXPECT_TRUE(log.items.empty());
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].name, 1u);
    EXPECT_EQ(out[0].dur, 5); // 1 .. 6
    EXPECT_EQ(out[1].name, 2u);
    EXPECT_EQ(out[1].dur, 1); // 2 .. 3: the inner B takes the first E
}

TEST(NestingTracker, UnmatchedEndIsSkippedAndUnterminatedBeginLastsToTraceEnd) {
    NestingTracker t;
    t.end(1, 0, 11); // nothing open
    t.begin(slice(2, 0, 7, 1), 22);
    t.complete(slice(3, 4, 8, 2));
    WarnLog log;
    const auto out = t.takeSorted(50, log.fn());
    ASSERT_EQ(log.items.size(), 2u);
    EXPECT_EQ(log.items[0].code, "unmatched-end");
    EXPECT_EQ(log.items[0].offset, 11u);
    EXPECT_EQ(log.items[0].record, 0u);
    EXPECT_EQ(log.items[1].code, "unterminated-begin");
    EXPECT_EQ(log.items[1].offset, 22u);
    EXPECT_EQ(log.items[1].record, 1u);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].name, 7u);
    EXPECT_EQ(out[0].dur, 48); // 2 .. trace end 50
    EXPECT_EQ(out[1].name, 8u);
    // A begin after the trace end closes at its own start.
    NestingTracker late;
    late.begin(slice(90, 0, 1, 0), 0);
    EXPECT_EQ(late.takeSorted(50, log.fn())[0].dur, 0);
}

TEST(NestingTracker, SortsByStartLongerFirstThenArrival) {
    NestingTracker t;
    t.complete(slice(5, 1, 1, 0));
    t.complete(slice(5, 3, 2, 1));
    t.complete(slice(5, 1, 3, 2));
    t.complete(slice(0, 1, 4, 3));
    WarnLog log;
    const auto out = t.takeSorted(0, log.fn());
    std::vector<StringId> names;
    for (const auto& s : out)
        names.push_back(s.name);
    EXPECT_EQ(names, (std::vector<StringId>{4, 2, 1, 3}));
}

TEST(SliceNester, ParentIsTheLatestSliceStillOpenAndOverlapsAreCounted) {
    SliceNester n;
    auto a = n.place(0, 0, 10);
    auto b = n.place(1, 2, 5);
    auto c = n.place(2, 5, 12); // b ended at 5; inside a but ends after it
    auto d = n.place(3, 20, 21);
    EXPECT_EQ(a.depth, 0);
    EXPECT_EQ(a.parent, kNoIndex);
    EXPECT_EQ(b.depth, 1);
    EXPECT_EQ(b.parent, 0u);
    EXPECT_EQ(c.depth, 1);
    EXPECT_EQ(c.parent, 0u);
    EXPECT_TRUE(c.overlapsParent);
    EXPECT_FALSE(b.overlapsParent);
    EXPECT_EQ(d.depth, 0);
}

TEST(AsyncLaneTracker, EndsCloseTheLatestBeginOfTheirKindAndId) {
    AsyncLaneTracker t;
    t.begin(AsyncKind::Nestable, 0, 1, 7, AsyncSpan{1, kNoTime, 5, 1, {}, 0});
    t.begin(AsyncKind::Nestable, 0, 1, 7, AsyncSpan{2, kNoTime, 5, 1, {}, 1});
    EXPECT_FALSE(t.end(AsyncKind::Legacy, 0, 1, 7, 3));   // another kind
    EXPECT_FALSE(t.end(AsyncKind::Nestable, 0, 2, 7, 3)); // another category
    EXPECT_FALSE(t.end(AsyncKind::Nestable, 1, 1, 7, 3)); // another process
    EXPECT_TRUE(t.end(AsyncKind::Nestable, 0, 1, 7, 4));  // closes the one from 2
    EXPECT_TRUE(t.end(AsyncKind::Nestable, 0, 1, 7, 0));  // before its start: zero length
    EXPECT_FALSE(t.end(AsyncKind::Nestable, 0, 1, 7, 9));
    WarnLog log;
    t.closeOpen(100, 42, log.fn());
    EXPECT_TRUE(log.items.empty());
    const auto lanes = t.takeLanes(0);
    ASSERT_EQ(lanes.size(), 1u); // [1,1] ends before [2,4] starts: one lane
    ASSERT_EQ(lanes[0].spans.size(), 2u);
    EXPECT_EQ(lanes[0].spans[0].start, 1);
    EXPECT_EQ(lanes[0].spans[0].end, 1);
    EXPECT_EQ(lanes[0].spans[1].start, 2);
    EXPECT_EQ(lanes[0].spans[1].end, 4);
}

TEST(AsyncLaneTracker, SpansTakeTheFirstFreeLaneAndOpenOnesCloseAtTraceEnd) {
    AsyncLaneTracker t;
    // Name 3: [0,10] [2,4] [5,12] [11,13] -> lanes {0-10, 11-13}, {2-4, 5-12}.
    const std::int64_t spans[][2] = {{0, 10}, {2, 4}, {5, 12}, {11, 13}};
    std::uint32_t order = 0;
    for (const auto& s : spans) {
        t.begin(AsyncKind::Legacy, 0, 0, order, AsyncSpan{s[0], kNoTime, 3, 0, {}, order});
        ASSERT_TRUE(t.end(AsyncKind::Legacy, 0, 0, order, s[1]));
        ++order;
    }
    // Name 2 sorts before name 3; left open, it ends at the trace end.
    t.begin(AsyncKind::Nestable, 0, 0, 99, AsyncSpan{4, kNoTime, 2, 0, {}, order});
    WarnLog log;
    t.closeOpen(50, 8, log.fn());
    ASSERT_EQ(log.items.size(), 1u);
    EXPECT_EQ(log.items[0].code, "unterminated-async");
    EXPECT_EQ(log.items[0].record, 8u);
    const auto lanes = t.takeLanes(0);
    ASSERT_EQ(lanes.size(), 3u);
    EXPECT_EQ(lanes[0].name, 2u);
    EXPECT_EQ(lanes[0].spans[0].end, 50);
    ASSERT_EQ(lanes[1].spans.size(), 2u);
    EXPECT_EQ(lanes[1].spans[0].start, 0);
    EXPECT_EQ(lanes[1].spans[1].start, 11);
    ASSERT_EQ(lanes[2].spans.size(), 2u);
    EXPECT_EQ(lanes[2].spans[0].start, 2);
    EXPECT_EQ(lanes[2].spans[1].start, 5);
    EXPECT_TRUE(t.takeLanes(0).empty());
    EXPECT_TRUE(t.takeLanes(9).empty());
}

namespace {

// Thread t has one slice per entry of `slices[t]`: {start, end}, slice index in order.
class FakeSlices : public FlowTracker::SliceLookup {
public:
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> threads;
    std::uint32_t enclosing(std::uint32_t thread, std::int64_t ts) const override {
        for (std::uint32_t i = 0; i < threads[thread].size(); ++i)
            if (threads[thread][i].first <= ts && ts <= threads[thread][i].second)
                return base(thread) + i;
        return kNoIndex;
    }
    std::uint32_t next(std::uint32_t thread, std::int64_t ts) const override {
        for (std::uint32_t i = 0; i < threads[thread].size(); ++i)
            if (threads[thread][i].first >= ts) return base(thread) + i;
        return kNoIndex;
    }
    std::uint32_t base(std::uint32_t thread) const {
        std::uint32_t b = 0;
        for (std::uint32_t t = 0; t < thread; ++t)
            b += static_cast<std::uint32_t>(threads[t].size());
        return b;
    }
};

FlowPoint point(char ph, std::uint64_t id, std::int64_t ts, std::uint32_t thread,
                std::uint32_t order, bool enclosing = true) {
    FlowPoint p;
    p.ph = ph;
    p.id = id;
    p.ts = ts;
    p.thread = thread;
    p.order = order;
    p.enclosing = enclosing;
    return p;
}

} // namespace

TEST(FlowTracker, ChainsBindStartStepAndEndToTheirSlices) {
    FakeSlices slices;
    slices.threads = {{{0, 10}}, {{20, 30}, {40, 50}}}; // slices 0 | 1, 2
    FlowTracker t(false);
    t.point(point('f', 1, 35, 1, 2, false)); // binding point "next": slice 2
    t.point(point('s', 1, 5, 0, 0));
    t.point(point('t', 1, 25, 1, 1));
    HugePageVector<Flow> flows;
    std::uint64_t record = 9;
    WarnLog log;
    t.bind(slices, {}, {}, flows, record, log.fn());
    EXPECT_TRUE(log.items.empty());
    ASSERT_EQ(flows.size(), 2u);
    EXPECT_EQ(flows[0].fromSlice, 0u);
    EXPECT_EQ(flows[0].toSlice, 1u);
    EXPECT_EQ(flows[1].fromSlice, 1u);
    EXPECT_EQ(flows[1].toSlice, 2u);
    EXPECT_EQ(record, 2u); // the last point's
}

TEST(FlowTracker, EndsWithoutStartBindBackwardsOrAreDroppedChromeStyle) {
    FakeSlices slices;
    slices.threads = {{{0, 10}, {20, 30}}};
    for (bool compat : {false, true}) {
        FlowTracker t(compat);
        t.point(point('f', 4, 5, 0, 0));  // before the start of id 4
        t.point(point('s', 4, 25, 0, 1)); // the start, later
        t.point(point('t', 5, 5, 0, 2));  // id 5 never starts
        t.point(point('s', 6, 15, 0, 3)); // no slice at 15
        HugePageVector<Flow> flows;
        std::uint64_t record = 0;
        WarnLog log;
        t.bind(slices, {}, {}, flows, record, log.fn());
        auto c = log.counts();
        EXPECT_EQ(c["unbound-flow"], 1);
        if (compat) {
            EXPECT_TRUE(flows.empty());
            EXPECT_EQ(c["flow-without-start"], 2);
            EXPECT_EQ(c["backwards-flow"], 0);
        } else {
            ASSERT_EQ(flows.size(), 1u);
            EXPECT_EQ(flows[0].fromSlice, 1u); // from the start...
            EXPECT_EQ(flows[0].toSlice, 0u);   // ...back to the earlier end
            EXPECT_EQ(c["backwards-flow"], 1);
            EXPECT_EQ(c["flow-without-start"], 1); // id 5
        }
    }
}

TEST(FlowTracker, BindIdsJoinTheLatestFlowOutToLaterFlowIns) {
    const std::int64_t starts[] = {0, 10, 20, 30};
    const StringId names[] = {11, 12, 13, 14};
    FlowTracker t(false);
    t.bindable(2, 7, kFlowIn);            // 20: out at 10 before it
    t.bindable(1, 7, kFlowOut);           // 10
    t.bindable(0, 8, kFlowIn);            // 0: no out of 8 before it
    t.bindable(3, 7, kFlowIn | kFlowOut); // 30: from 10 too
    HugePageVector<Flow> flows;
    std::uint64_t record = 5;
    WarnLog log;
    FakeSlices none;
    t.bind(none, starts, names, flows, record, log.fn());
    ASSERT_EQ(flows.size(), 2u);
    EXPECT_EQ(flows[0].fromSlice, 1u);
    EXPECT_EQ(flows[0].toSlice, 2u);
    EXPECT_EQ(flows[0].name, 12u); // named after the start slice
    EXPECT_EQ(flows[1].fromSlice, 1u);
    EXPECT_EQ(flows[1].toSlice, 3u);
    ASSERT_EQ(log.items.size(), 1u);
    EXPECT_EQ(log.items[0].code, "flow-without-start");
    EXPECT_EQ(log.items[0].record, 5u);
}

TEST(TraceStoreBuilder, BuildsAStoreFromEventsWithoutJson) {
    TraceStoreBuilder b("built");
    const StringId pid = b.intern("7"), tid = b.intern("1"), name = b.intern("step");
    b.setPosition(0);
    const std::uint32_t t = b.thread(pid, tid);
    b.setProcessName(b.process(pid), b.intern("trainer"));
    b.setThreadName(t, b.intern("main"));
    SliceEvent outer;
    outer.ts = 1000;
    outer.dur = 5000;
    outer.name = name;
    outer.args = b.addArgs(R"({"gstep":3})");
    outer.bindId = b.intern("42");
    outer.flowOut = true;
    b.setPosition(1);
    b.addComplete(t, outer);
    SliceEvent inner;
    inner.ts = 2000;
    inner.name = b.intern("op");
    inner.bindId = b.intern("42");
    inner.flowIn = true;
    b.setPosition(2);
    b.addBegin(t, inner);
    b.setPosition(3);
    b.addEnd(t, 3000);
    b.setPosition(4);
    b.addEnd(t, 3500); // no B left
    b.setPosition(5);
    b.addCounter(b.process(pid), b.intern("bytes"), "bytes", 1500, 64.0);
    b.addCounter(b.process(pid), b.intern("bytes"), "bytes", 1200, 32.0);
    b.setPosition(6);
    b.asyncBegin(AsyncKind::Nestable, b.process(pid), 0, b.idKey("0x10"), b.intern("req"), 1100,
                 {});
    b.setPosition(7);
    EXPECT_FALSE(b.asyncEnd(AsyncKind::Nestable, b.process(pid), 0, b.idKey("16"), 1200));
    Instant in;
    in.ts = 900;
    in.name = b.intern("restart");
    b.addInstant(b.process(pid), t, in);
    b.countEvent();
    b.countPhase("X");
    const TraceStore st = b.finish();

    ASSERT_EQ(st.processes().size(), 1u);
    EXPECT_EQ(st.processLabel(0), "trainer");
    EXPECT_EQ(st.threadLabel(0), "main");
    ASSERT_EQ(st.sliceCount(), 3u); // step, op, and the unterminated async lane's req
    EXPECT_EQ(st.str(st.sliceName()[0]), "step");
    EXPECT_EQ(st.sliceDepth()[1], 1);
    EXPECT_EQ(st.sliceParent()[1], 0u);
    EXPECT_EQ(st.sliceDuration()[1], 1000);
    EXPECT_EQ(st.argsJson(st.sliceArgs(0)), R"({"gstep":3})");
    ASSERT_EQ(st.decodeArgs(st.sliceArgs(0)).size(), 1u);
    ASSERT_EQ(st.tracks().size(), 2u);
    EXPECT_EQ(st.tracks()[1].kind, TrackKind::Async);
    EXPECT_EQ(st.sliceDuration()[2], 6000 - 1100); // open at the end: closed at trace end
    ASSERT_EQ(st.flows().size(), 1u);              // bind_id 42: step -> op
    EXPECT_EQ(st.flows()[0].toSlice, 1u);
    ASSERT_EQ(st.counters().size(), 1u);
    EXPECT_EQ(st.counters()[0].ts, (std::vector<std::int64_t>{1200, 1500}));
    EXPECT_EQ(st.counters()[0].values, (std::vector<double>{32.0, 64.0}));
    EXPECT_EQ(st.beginTime(), 900);
    EXPECT_EQ(st.endTime(), 6000);
    const auto& codes = st.report().diagnostics.countsByCode();
    EXPECT_EQ(codes.at("unmatched-end"), 1u);
    EXPECT_EQ(codes.at("unmatched-async-end"), 1u); // 0x10 and 16 are different ids
    EXPECT_EQ(codes.at("unterminated-async"), 1u);
    EXPECT_EQ(st.report().events, 1u);
    EXPECT_EQ(st.report().phases.at("X"), 1u);
    EXPECT_EQ(st.report().file, "built");
}

TEST(TraceStoreBuilder, BoundsProcessesAndThreads) {
    ImportOptions o;
    o.maxProcesses = 1;
    o.maxThreads = 1;
    TraceStoreBuilder b("bounded", o);
    const StringId p1 = b.intern("1"), p2 = b.intern("2"), t1 = b.intern("1"), t2 = b.intern("2");
    EXPECT_TRUE(b.admit(p1, t1, true));
    b.thread(p1, t1);
    EXPECT_TRUE(b.admit(p1, t1, true));
    EXPECT_FALSE(b.admit(p1, t2, true));
    EXPECT_TRUE(b.admit(p1, t2, false));
    EXPECT_FALSE(b.admit(p2, t1, false));
    const TraceStore st = b.finish();
    EXPECT_EQ(st.report().diagnostics.countsByCode().at("too-many-threads"), 1u);
    EXPECT_EQ(st.report().diagnostics.countsByCode().at("too-many-processes"), 1u);
}
