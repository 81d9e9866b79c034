// Chrome-trace import on hand-made inputs: every tolerance rule of docs/TIMELINE.md, flows, async,
// counters, objects, and bad input that must give a clear error or report, never a crash.
#include "chrome_json.h"
#include "core/timeline/chrome_trace_reader.h"

#include "core/base/byte_format.h"
#include "temp_dir.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

using namespace xt::timeline;

namespace {

using xt::timeline::test::importJson;

std::uint64_t reason(const TraceStore& st, const std::string& code) {
    const auto& c = st.report().diagnostics.countsByCode();
    auto it = c.find(code);
    return it == c.end() ? 0 : it->second;
}

// Slice index by name (first match).
std::uint32_t slice(const TraceStore& st, std::string_view name) {
    for (std::uint32_t s = 0; s < st.sliceCount(); ++s)
        if (st.str(st.sliceName()[s]) == name) return s;
    ADD_FAILURE() << "no slice " << name;
    return kNoIndex;
}

std::string gzip(const std::string& s) {
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, s.size()) + 32, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
    zs.avail_in = static_cast<uInt>(s.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

} // namespace

TEST(ChromeTraceReader, NestingDepthAndParents) {
    auto st = importJson(R"([
      {"ph":"X","name":"outer","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"B","name":"mid","pid":1,"tid":1,"ts":10},
      {"ph":"X","name":"inner","pid":1,"tid":1,"ts":20,"dur":5},
      {"ph":"E","pid":1,"tid":1,"ts":50}
    ])");
    ASSERT_EQ(st.sliceCount(), 3u);
    const auto outer = slice(st, "outer"), mid = slice(st, "mid"), inner = slice(st, "inner");
    EXPECT_EQ(st.sliceDepth()[outer], 0);
    EXPECT_EQ(st.sliceDepth()[mid], 1);
    EXPECT_EQ(st.sliceDepth()[inner], 2);
    EXPECT_EQ(st.sliceParent()[inner], mid);
    EXPECT_EQ(st.sliceParent()[mid], outer);
    EXPECT_EQ(st.sliceDuration()[mid], 40'000); // ns
    EXPECT_EQ(st.report().objectForm, false);
}

TEST(ChromeTraceReader, ObjectFormKeysAndMetadata) {
    auto st = importJson(R"({"otherData":{"x":[1,2,{"y":"]"}]},"displayTimeUnit":"ns",
      "traceEvents":[
        {"ph":"M","name":"process_name","pid":7,"args":{"name":"Trainer"}},
        {"ph":"M","name":"process_sort_index","pid":7,"args":{"sort_index":-1}},
        {"ph":"M","name":"thread_name","pid":7,"tid":"3","args":{"name":"worker"}},
        {"ph":"X","name":"a","pid":7,"tid":3,"ts":1,"dur":1},
        {"ph":"X","name":"b","pid":2,"tid":1,"ts":1,"dur":1}
      ],
      "metadata":{"k":"v"}, "stackFrames":{}, "samples":[]})");
    EXPECT_TRUE(st.report().objectForm);
    EXPECT_EQ(st.report().displayTimeUnit, "ns");
    ASSERT_EQ(st.processes().size(), 2u);
    // sort_index -1 puts pid 7 first; its numeric tid 3 and string tid "3" are one thread.
    EXPECT_EQ(st.processLabel(0), "Trainer");
    EXPECT_EQ(st.processLabel(1), "pid 2");
    ASSERT_EQ(st.threads().size(), 2u);
    EXPECT_EQ(st.threadLabel(0), "worker");
    EXPECT_EQ(st.report().diagnostics.total(), 0u);
}

TEST(ChromeTraceReader, TrailingCommaAndMissingBrackets) {
    for (std::string text :
         {std::string(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},)"),
          std::string(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},
                                           )"),
          std::string(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}  )"),
          std::string(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},)"),
          std::string(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},])")}) {
        SCOPED_TRACE(text);
        auto st = importJson(text);
        EXPECT_EQ(st.report().events, 1u);
        EXPECT_EQ(st.sliceCount(), 1u);
    }
    auto st = importJson(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},])");
    EXPECT_EQ(reason(st, "trailing-comma"), 1u);
}

TEST(ChromeTraceReader, UnsortedAndOverlappingXAreKept) {
    auto st = importJson(R"([
      {"ph":"X","name":"k3","pid":0,"tid":"stream 7","ts":30,"dur":10},
      {"ph":"X","name":"k1","pid":0,"tid":"stream 7","ts":0,"dur":20},
      {"ph":"X","name":"k2","pid":0,"tid":"stream 7","ts":10,"dur":15}
    ])");
    ASSERT_EQ(st.sliceCount(), 3u);
    const auto k1 = slice(st, "k1"), k2 = slice(st, "k2"), k3 = slice(st, "k3");
    EXPECT_LT(k1, k2);
    EXPECT_LT(k2, k3);
    EXPECT_EQ(st.sliceDepth()[k1], 0);
    EXPECT_EQ(st.sliceDepth()[k2], 1); // overlaps k1 without nesting: one row deeper
    EXPECT_EQ(st.sliceDepth()[k3], 0);
    EXPECT_EQ(reason(st, "overlapping-slice"), 1u);
}

TEST(ChromeTraceReader, UnbalancedBeginEnd) {
    auto st = importJson(R"([
      {"ph":"E","pid":1,"tid":1,"ts":5},
      {"ph":"B","name":"open","pid":1,"tid":1,"ts":10},
      {"ph":"B","name":"closed","pid":1,"tid":1,"ts":20},
      {"ph":"E","pid":1,"tid":1,"ts":30},
      {"ph":"i","name":"last","pid":1,"tid":1,"ts":100}
    ])");
    EXPECT_EQ(reason(st, "unmatched-end"), 1u);
    EXPECT_EQ(reason(st, "unterminated-begin"), 1u);
    const auto open = slice(st, "open");
    EXPECT_EQ(st.sliceEnd(open), 100'000); // closed at the end of the trace
    EXPECT_EQ(st.sliceDuration()[slice(st, "closed")], 10'000);
    EXPECT_EQ(st.report().phases.at("E"), 2u);
}

TEST(ChromeTraceReader, FlowV1BindsEnclosingAndNextSlices) {
    auto st = importJson(R"([
      {"ph":"X","name":"producer","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"X","name":"child","pid":1,"tid":1,"ts":2,"dur":3},
      {"ph":"s","name":"f","cat":"c","id":"0x1","pid":1,"tid":1,"ts":3},
      {"ph":"X","name":"middle","pid":1,"tid":2,"ts":20,"dur":10},
      {"ph":"t","name":"f","cat":"c","id":"0x1","pid":1,"tid":2,"ts":25},
      {"ph":"f","name":"f","cat":"c","id":"0x1","pid":2,"tid":1,"ts":35},
      {"ph":"X","name":"consumer","pid":2,"tid":1,"ts":40,"dur":10},
      {"ph":"s","name":"g","cat":"c","id":7,"pid":1,"tid":1,"ts":8},
      {"ph":"f","name":"g","cat":"c","id":7,"bp":"e","pid":2,"tid":1,"ts":45},
      {"ph":"f","name":"h","cat":"c","id":9,"pid":2,"tid":1,"ts":45}
    ])");
    ASSERT_EQ(st.flows().size(), 3u);
    EXPECT_EQ(st.flows()[0].fromSlice, slice(st, "child")); // deepest enclosing slice
    EXPECT_EQ(st.flows()[0].toSlice, slice(st, "middle"));
    EXPECT_EQ(st.flows()[1].fromSlice, slice(st, "middle"));
    EXPECT_EQ(st.flows()[1].toSlice, slice(st, "consumer")); // f without bp: next slice
    EXPECT_EQ(st.flows()[2].fromSlice, slice(st, "producer"));
    EXPECT_EQ(st.flows()[2].toSlice, slice(st, "consumer")); // bp=e: enclosing
    EXPECT_EQ(reason(st, "flow-without-start"), 1u);
}

TEST(ChromeTraceReader, FlowStepBeforeItsStartBindsBackwards) {
    const std::string json = R"([
      {"ph":"X","name":"consumer","pid":1,"tid":1,"ts":0,"dur":20},
      {"ph":"X","name":"producer","pid":1,"tid":2,"ts":0,"dur":10},
      {"ph":"s","name":"x","cat":"DataFlow","id":0,"pid":1,"tid":2,"ts":10},
      {"ph":"t","name":"x","cat":"DataFlow","id":0,"pid":1,"tid":1,"ts":5}
    ])";
    auto st = importJson(json);
    ASSERT_EQ(st.flows().size(), 1u);
    EXPECT_EQ(st.flows()[0].fromSlice, slice(st, "producer"));
    EXPECT_EQ(st.flows()[0].toSlice, slice(st, "consumer"));
    EXPECT_EQ(reason(st, "backwards-flow"), 1u);
    EXPECT_EQ(reason(st, "flow-without-start"), 0u);
    const auto& items = st.report().diagnostics.items();
    ASSERT_FALSE(items.empty());
    EXPECT_EQ(items[0].severity, xt::Severity::Info);

    // Chrome-compatible: dropped as chrome://tracing drops it, and counted.
    ImportOptions chrome;
    chrome.chromeCompatibleFlows = true;
    auto cc = importJson(json, chrome);
    EXPECT_EQ(cc.flows().size(), 0u);
    EXPECT_EQ(reason(cc, "flow-without-start"), 1u);
    EXPECT_EQ(reason(cc, "backwards-flow"), 0u);
}

TEST(ChromeTraceReader, ReusedFlowIdsBindInTurnAndBackwardsOnlyToTheNextStart) {
    // One id for three flows: a -> b; then a step at 32 before its start at 35 (e -> d); then
    // f -> g; a last step with no start after it stays unbound. bp:"e" binds an end to its
    // enclosing slice also when it comes before its start.
    auto st = importJson(R"([
      {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"X","name":"b","pid":1,"tid":2,"ts":20,"dur":10},
      {"ph":"X","name":"d","pid":1,"tid":1,"ts":30,"dur":5},
      {"ph":"X","name":"e","pid":1,"tid":2,"ts":34,"dur":4},
      {"ph":"X","name":"f","pid":1,"tid":1,"ts":50,"dur":10},
      {"ph":"X","name":"g","pid":1,"tid":2,"ts":70,"dur":10},
      {"ph":"X","name":"h","pid":1,"tid":1,"ts":90,"dur":10},
      {"ph":"s","name":"n","cat":"c","id":3,"pid":1,"tid":1,"ts":5},
      {"ph":"f","name":"n","cat":"c","id":3,"pid":1,"tid":2,"ts":25,"bp":"e"},
      {"ph":"f","name":"n","cat":"c","id":3,"pid":1,"tid":1,"ts":32,"bp":"e"},
      {"ph":"s","name":"n","cat":"c","id":3,"pid":1,"tid":2,"ts":35},
      {"ph":"s","name":"n","cat":"c","id":3,"pid":1,"tid":1,"ts":55},
      {"ph":"f","name":"n","cat":"c","id":3,"pid":1,"tid":2,"ts":75,"bp":"e"},
      {"ph":"t","name":"n","cat":"c","id":3,"pid":1,"tid":1,"ts":95},
      {"ph":"s","name":"other","cat":"c","id":3,"pid":1,"tid":2,"ts":75}
    ])");
    ASSERT_EQ(st.flows().size(), 3u);
    std::vector<std::pair<std::string_view, std::string_view>> got;
    for (const Flow& f : st.flows())
        got.emplace_back(st.str(st.sliceName()[f.fromSlice]), st.str(st.sliceName()[f.toSlice]));
    EXPECT_EQ(got[0], (std::pair<std::string_view, std::string_view>("a", "b")));
    EXPECT_EQ(got[1], (std::pair<std::string_view, std::string_view>("e", "d")));
    EXPECT_EQ(got[2], (std::pair<std::string_view, std::string_view>("f", "g")));
    EXPECT_EQ(reason(st, "backwards-flow"), 1u);
    EXPECT_EQ(reason(st, "flow-without-start"), 1u); // the step at 95, and "other" has no step
}

TEST(ChromeTraceReader, FlowV2BindIds) {
    auto st = importJson(R"({"traceEvents":[
      {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10,"bind_id":"0xa","flow_out":true},
      {"ph":"X","name":"b","pid":1,"tid":2,"ts":20,"dur":10,"bind_id":"0xa","flow_in":true,"flow_out":true},
      {"ph":"X","name":"c","pid":1,"tid":3,"ts":40,"dur":10,"bind_id":"0xa","flow_in":true}
    ]})");
    ASSERT_EQ(st.flows().size(), 2u);
    EXPECT_EQ(st.flows()[0].fromSlice, slice(st, "a"));
    EXPECT_EQ(st.flows()[0].toSlice, slice(st, "b"));
    EXPECT_EQ(st.flows()[1].fromSlice, slice(st, "b"));
    EXPECT_EQ(st.flows()[1].toSlice, slice(st, "c"));
}

TEST(ChromeTraceReader, CountersAsSortedSeries) {
    auto st = importJson(R"([
      {"ph":"C","name":"mem","pid":1,"ts":20,"args":{"used":5,"free":1}},
      {"ph":"C","name":"mem","pid":1,"ts":10,"args":{"used":3,"free":"n/a"}},
      {"ph":"C","name":"empty","pid":1,"ts":10,"args":{}}
    ])");
    ASSERT_EQ(st.counters().size(), 2u);
    const CounterSeries& used = st.counters()[0];
    EXPECT_EQ(st.str(used.name), "mem used");
    ASSERT_EQ(used.ts.size(), 2u);
    EXPECT_EQ(used.ts[0], 10'000);
    EXPECT_EQ(used.values[0], 3.0);
    EXPECT_EQ(used.values[1], 5.0);
    EXPECT_EQ(st.counters()[1].ts.size(), 1u);
    EXPECT_EQ(reason(st, "counter-without-values"), 1u);
}

TEST(ChromeTraceReader, AsyncSlicesAndLanes) {
    auto st = importJson(R"([
      {"ph":"b","name":"req","cat":"net","id":1,"pid":1,"tid":1,"ts":0},
      {"ph":"b","name":"req","cat":"net","id":2,"pid":1,"tid":2,"ts":5},
      {"ph":"n","name":"mark","cat":"net","id":1,"pid":1,"tid":1,"ts":6},
      {"ph":"e","name":"req","cat":"net","id":1,"pid":1,"tid":3,"ts":10},
      {"ph":"e","name":"req","cat":"net","id":2,"pid":1,"tid":1,"ts":20},
      {"ph":"S","name":"old","cat":"x","id":"a","pid":1,"tid":1,"ts":30},
      {"ph":"T","name":"old","cat":"x","id":"a","pid":1,"tid":1,"ts":31},
      {"ph":"F","name":"old","cat":"x","id":"a","pid":1,"tid":1,"ts":40},
      {"ph":"b","name":"dangling","cat":"x","id":3,"pid":1,"tid":1,"ts":50}
    ])");
    std::vector<const Track*> async;
    for (const Track& t : st.tracks())
        if (t.kind == TrackKind::Async) async.push_back(&t);
    // req overlaps itself: two lanes; old and dangling one lane each.
    ASSERT_EQ(async.size(), 4u);
    EXPECT_EQ(st.sliceDuration()[slice(st, "req")], 10'000);
    EXPECT_EQ(st.sliceDuration()[slice(st, "old")], 10'000);
    EXPECT_EQ(reason(st, "unterminated-async"), 1u);
    EXPECT_EQ(reason(st, "async-step-ignored"), 1u);
    ASSERT_EQ(st.instants().size(), 1u);
    EXPECT_EQ(st.instants()[0].scope, InstantScope::Process);
}

TEST(ChromeTraceReader, ObjectLifetimes) {
    auto st = importJson(R"([
      {"ph":"N","name":"Tensor","id":"0x10","pid":1,"ts":0},
      {"ph":"O","name":"Tensor","id":"0x10","pid":1,"ts":5,"args":{"snapshot":{"bytes":64}}},
      {"ph":"D","name":"Tensor","id":"0x10","pid":1,"ts":10},
      {"ph":"N","name":"Tensor","id":"0x11","pid":1,"ts":3},
      {"ph":"D","name":"Tensor","id":"0x99","pid":1,"ts":3}
    ])");
    ASSERT_EQ(st.objects().size(), 2u);
    EXPECT_EQ(st.objects()[0].created, 0);
    EXPECT_EQ(st.objects()[0].destroyed, 10'000);
    EXPECT_EQ(st.objects()[0].snapshots, 1u);
    EXPECT_EQ(st.argsJson(st.objects()[0].lastSnapshot), R"({"snapshot":{"bytes":64}})");
    EXPECT_EQ(st.objects()[1].destroyed, kNoTime);
    EXPECT_EQ(reason(st, "object-delete-without-create"), 1u);
}

TEST(ChromeTraceReader, OddValuesSurvive) {
    const std::string longName(5000, 'n');
    auto st = importJson(R"([
      {"ph":"X","name":"nul\u0000inside","pid":18446744073709551617,"tid":1.5,"ts":1633765477670773.125,"dur":0.5,
       "id":123456789012345678901234567890,"args":{"big":123456789012345678901234567890,"s":"t\"q"}},
      {"ph":"X","name":")" +
                         longName + R"(","pid":1,"tid":1,"ts":-5,"dur":1},
      {"ph":"X","name":"nullts","pid":1,"tid":1,"ts":null,"dur":1},
      {"ph":"X","name":"nots","pid":1,"tid":1},
      {"ph":"Z","name":"future","pid":1,"tid":1,"ts":1},
      {"ph":"XY","name":"two","pid":1,"tid":1,"ts":1},
      {"name":"nophase"},
      {"ph":"X","name":"broken","pid":1,"tid":1,"ts":1,"dur":tru},
      7, "str",
      {"ph":"P","name":"sample","pid":1,"tid":1,"ts":1}
    ])");
    EXPECT_EQ(st.report().events, 9u);
    EXPECT_EQ(st.report().phases.at("X"), 5u);
    EXPECT_EQ(st.report().phases.at("Z"), 1u);
    EXPECT_EQ(st.report().phases.at("XY"), 1u);
    EXPECT_EQ(reason(st, "null-ts"), 1u);
    EXPECT_EQ(reason(st, "missing-ts"), 1u);
    EXPECT_EQ(reason(st, "unknown-phase"), 2u);
    EXPECT_EQ(reason(st, "missing-phase"), 1u);
    EXPECT_EQ(reason(st, "malformed-event"), 1u);
    EXPECT_EQ(reason(st, "non-object-event"), 2u);
    EXPECT_EQ(reason(st, "sample-ignored"), 1u);
    ASSERT_EQ(st.sliceCount(), 2u);
    const auto nul = slice(st, std::string_view("nul\0inside", 10));
    EXPECT_EQ(st.sliceStart()[nul], 1633765477670773125); // exact, not rounded via double
    EXPECT_EQ(st.sliceDuration()[nul], 500);
    EXPECT_EQ(
        st.str(st.processes()[st.threads()[st.tracks()[st.sliceTrack()[nul]].thread].process].pid),
        "18446744073709551617");
    const auto args = st.decodeArgs(st.sliceArgs(nul));
    ASSERT_EQ(args.size(), 2u);
    EXPECT_EQ(args[0].second, "123456789012345678901234567890");
    EXPECT_EQ(args[1].second, "t\"q");
    const auto lng = slice(st, longName);
    EXPECT_EQ(st.sliceStart()[lng], -5000);
    EXPECT_EQ(st.beginTime(), -5000);
}

// What sniffBytes (and so core/open) takes for JSON text, the reader reads: a byte-order mark
// and whitespace before the first '{', in the one-pass parse and in the tolerant walk.
TEST(ChromeTraceReader, LeadingWhitespaceAndByteOrderMarkAsTheSnifferReadsThem) {
    const std::string strict =
        R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]})";
    const std::string tolerant =
        R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},]})";
    for (const std::string prefix :
         {std::string("\n   "), std::string("\xEF\xBB\xBF"), std::string("\xEF\xBB\xBF\r\n\t ")}) {
        for (const std::string& body : {strict, tolerant}) {
            const std::string text = prefix + body;
            SCOPED_TRACE(text);
            EXPECT_EQ(xt::sniffBytes(text, text.size()), xt::ByteFormat::JsonText);
            auto st = importJson(text);
            EXPECT_TRUE(st.report().objectForm);
            EXPECT_EQ(st.sliceCount(), 1u);
            EXPECT_EQ(reason(st, "trailing-comma"), body == tolerant ? 1u : 0u);
        }
    }
    for (const std::string text :
         {std::string("\xEF\xBB\xBF \n"), std::string("\xEF\xBB\xBF x{}")}) {
        EXPECT_NE(xt::sniffBytes(text, text.size()), xt::ByteFormat::JsonText);
        EXPECT_FALSE(importChromeTraceBytes(text).isOk());
    }
}

TEST(ChromeTraceReader, EmptyAndGarbageInputsGiveErrors) {
    for (std::string text :
         {std::string(""), std::string("   \n"), std::string("garbage"),
          std::string("\x1f\x8b garbage", 10), std::string("PK\x03\x04zzzz", 8)}) {
        auto r = importChromeTraceBytes(text);
        EXPECT_FALSE(r.isOk()) << text;
    }
    auto missing = importChromeTrace("/nonexistent/trace.json");
    ASSERT_FALSE(missing.isOk());
    EXPECT_NE(missing.status().message().find("/nonexistent/trace.json"), std::string::npos);
    for (std::string text : {std::string("["), std::string("{"), std::string("[]"),
                             std::string("{}"), std::string(R"({"traceEvents":)")}) {
        auto r = importChromeTraceBytes(text);
        ASSERT_TRUE(r.isOk()) << text;
        EXPECT_EQ(r->report().events, 0u);
    }
}

TEST(ChromeTraceReader, EveryTruncationIsHandled) {
    const std::string full =
        R"({"traceEvents":[{"ph":"X","name":"a\"]}","pid":1,"tid":1,"ts":1,"dur":2,"args":{"k":[1,2]}},{"ph":"B","name":"b","pid":1,"tid":1,"ts":2},{"ph":"E","pid":1,"tid":1,"ts":3},{"ph":"s","id":1,"pid":1,"tid":1,"ts":2},{"ph":"C","name":"c","pid":1,"ts":2,"args":{"v":1}}],"displayTimeUnit":"ms"})";
    for (std::size_t n = 0; n <= full.size(); ++n) {
        auto r = importChromeTraceBytes(full.substr(0, n));
        if (n == 0) {
            EXPECT_FALSE(r.isOk());
            continue;
        }
        ASSERT_TRUE(r.isOk()) << n;
        EXPECT_LE(r->report().events, 5u);
    }
    // Compressed and then cut: what was inflated is read, the cut is reported.
    const std::string gz = gzip(full);
    for (std::size_t n : {gz.size() / 2, gz.size() - 4}) {
        auto r = importChromeTraceBytes(gz.substr(0, n));
        ASSERT_TRUE(r.isOk() || r.status().code() == xt::ErrorCode::Corrupt);
        if (r.isOk()) EXPECT_EQ(r->report().diagnostics.countsByCode().count("truncated-gzip"), 1u);
    }
}

TEST(ChromeTraceReader, RandomBytesNeverCrash) {
    std::mt19937 rng(5);
    const std::string alphabet = "{}[],:\"\\ 0123456789.-eEtrufalsnXBEph";
    for (int i = 0; i < 2000; ++i) {
        std::string s = i % 2 ? "[{" : "{\"traceEvents\":[";
        const int n = static_cast<int>(rng() % 200);
        for (int k = 0; k < n; ++k)
            s += alphabet[rng() % alphabet.size()];
        auto r = importChromeTraceBytes(s);
        ASSERT_TRUE(r.isOk()) << s;
    }
}

TEST(ChromeTraceReader, GzipInMemoryAndConcatenatedMembers) {
    const std::string a = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},)";
    const std::string b = R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":2}])";
    auto st = importJson(gzip(a) + gzip(b));
    EXPECT_EQ(st.report().container, "gzip");
    EXPECT_EQ(st.sliceCount(), 2u);
}

TEST(ChromeTraceReader, GzipWithoutALimitInflatesPastItsFirstMegabytes) {
    // TraceBytes' default limit is "none" (UINT64_MAX): the buffer must still grow.
    std::string json = "[";
    for (int i = 0; i < 200000; ++i)
        json += R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},)";
    json.back() = ']';
    auto bytes = TraceBytes::fromMemory(gzip(json));
    ASSERT_TRUE(bytes.isOk()) << bytes.status().toString();
    EXPECT_EQ(bytes->text(), json);
}

// How many file descriptors this process has open.
static std::size_t openFds() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd"))
        ++n;
    return n;
}

TEST(TraceBytes, CopiesAnyRangeOfAFileOrOfTextInMemoryAndAStoreHoldsNoDescriptor) {
    std::string json = "[";
    for (int i = 0; i < 3000; ++i)
        json += R"({"ph":"X","name":"e)" + std::to_string(i) + R"(","ts":1,"dur":2},)";
    json.back() = ']';
    xt::test::TempDir dir;
    const std::string path = dir.file("bytes.json");
    std::ofstream(path, std::ios::binary) << json;
    const std::size_t fdsBefore = openFds();
    {
        auto file = TraceBytes::load(path);
        auto memory = TraceBytes::fromMemory(json);
        auto gz = TraceBytes::fromMemory(gzip(json));
        ASSERT_TRUE(file.isOk() && memory.isOk() && gz.isOk());
        EXPECT_EQ(openFds(), fdsBefore + 1); // the mapped file's
        std::mt19937 rng(7);
        for (int k = 0; k < 200; ++k) {
            std::size_t a = rng() % (json.size() + 1), b = rng() % (json.size() + 1);
            if (k == 0) a = 0, b = json.size();
            if (a > b) std::swap(a, b);
            for (const TraceBytes* bytes : {&*file, &*memory, &*gz}) {
                std::string out(b - a + 2, '#');
                bytes->copyText(a, b, out.data() + 1);
                EXPECT_EQ(out, "#" + json.substr(a, b - a) + "#") << a << ".." << b;
            }
        }
        // A moved TraceBytes reads its file as before, and from its mapping once it is closed.
        TraceBytes moved = std::move(*file);
        for (int closed = 0; closed < 2; ++closed) {
            std::string out(json.size(), '\0');
            moved.copyText(0, json.size(), out.data());
            EXPECT_EQ(out, json);
            moved.closeFile();
            EXPECT_EQ(openFds(), fdsBefore);
        }
    }
    EXPECT_EQ(openFds(), fdsBefore);
    // An imported store holds no descriptor.
    auto store = importChromeTrace(path);
    ASSERT_TRUE(store.isOk());
    EXPECT_EQ(store->sliceCount(), 3000u);
    EXPECT_EQ(openFds(), fdsBefore);
}

TEST(ChromeTraceReader, ProgressAndCancel) {
    std::string big = "[";
    for (int i = 0; i < 60000; ++i)
        big += R"({"ph":"X","name":"op","pid":1,"tid":1,"ts":)" + std::to_string(i * 10) +
               R"(,"dur":5,"args":{"pad":"................................................"}},)";
    big += "]";
    ImportOptions cancel;
    cancel.progress = [](const xt::ProgressReport& p) { return p.done < p.total / 2; };
    auto r = importChromeTraceBytes(big, cancel);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), xt::ErrorCode::Cancelled);
    ImportOptions watch;
    std::uint64_t last = 0, calls = 0;
    watch.progress = [&](const xt::ProgressReport& p) {
        EXPECT_GE(p.done, last);
        last = p.done;
        ++calls;
        return true;
    };
    auto ok = importChromeTraceBytes(big, watch);
    ASSERT_TRUE(ok.isOk());
    EXPECT_EQ(ok->sliceCount(), 60000u);
    EXPECT_GE(calls, 2u);
}
