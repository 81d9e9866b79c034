// Input bounds (docs/HARDENING.md "Limits"): each is configurable, and crossing one is a located
// diagnostic or a clear error, never unbounded memory or a crash. XDL record size, Chrome-trace
// nesting depth, processes, threads and inflated size, StepStats lanes, events, times and labels.
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/step_stats_reader.h"
#include "core/xdl/record_index.h"
#include "step_stats.pb.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <climits>
#include <string>

using namespace xt;
using namespace xt::timeline;

namespace {

std::uint64_t count(const TraceStore& st, const std::string& code) {
    const auto& c = st.report().diagnostics.countsByCode();
    auto it = c.find(code);
    return it == c.end() ? 0 : it->second;
}

const Diagnostic* find(const TraceStore& st, const std::string& code) {
    for (const auto& d : st.report().diagnostics.items())
        if (d.code == code) return &d;
    return nullptr;
}

std::string slice(int pid, int tid, int ts) {
    return R"({"ph":"X","name":"s","pid":)" + std::to_string(pid) + R"(,"tid":)" +
           std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":1})";
}

std::string gzip(const std::string& in) {
    z_stream zs{};
    EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&zs, in.size()) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

} // namespace

TEST(Limits, XdlRecordOverTheConfiguredBoundIsALocatedError) {
    using namespace xt::xdl;
    std::string file;
    const std::string header = encodeHeader({"v"});
    appendLength(file, static_cast<std::uint32_t>(header.size()));
    file += header;
    RecordEncoder enc;
    std::vector<std::uint64_t> offsets;
    for (int g = 0; g < 3; ++g) {
        std::vector<float> v(g == 1 ? 2000 : 4, 1.0f); // record 1: 8 kB
        const std::int64_t shape[] = {std::int64_t(v.size())};
        enc.begin(g, g);
        enc.addColumn(Dtype::Float, shape,
                      Bytes(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 4));
        ASSERT_TRUE(enc.finish(100 + g).isOk());
        offsets.push_back(file.size());
        file.append(reinterpret_cast<const char*>(enc.framed().data()), enc.framed().size());
    }
    const Bytes bytes(reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
    Diagnostics diag;
    RecordIndex index("f", IndexOptions{4096});
    ASSERT_TRUE(index.extend(bytes, diag).isOk());
    index.finish(bytes, diag);
    ASSERT_EQ(index.records().size(), 2u); // records 0 and 2
    EXPECT_EQ(index.records()[1].gstep, 2);
    ASSERT_EQ(diag.countsByCode().count("bad-length"), 1u);
    const Diagnostic& d = diag.items().front();
    EXPECT_EQ(d.code, "bad-length");
    EXPECT_EQ(d.offset, offsets[1]);
    EXPECT_NE(d.message.find("4096-byte record limit"), std::string::npos) << d.message;
}

TEST(Limits, ChromeNestingDeeperThanTheBoundIsSkippedAndLocated) {
    std::string deep = R"({"ph":"X","name":"deep","pid":1,"tid":1,"ts":5,"dur":1,"args":{"a":)";
    const std::size_t deepAt = std::string("[").size() + slice(1, 1, 0).size() + 1;
    deep += std::string(100000, '[') + std::string(100000, ']') + "}}";
    for (bool strict : {true, false}) { // valid JSON, and a trailing comma (tolerant path)
        const std::string json =
            "[" + slice(1, 1, 0) + "," + deep + "," + slice(1, 1, 9) + (strict ? "]" : ",");
        ImportOptions o;
        o.maxJsonDepth = 64;
        auto st = importChromeTraceBytes(json, o, "deep.json");
        ASSERT_TRUE(st.isOk()) << st.status().toString();
        EXPECT_EQ(st->sliceCount(), 2u);
        ASSERT_EQ(count(*st, "nesting-too-deep"), 1u);
        EXPECT_EQ(find(*st, "nesting-too-deep")->offset, deepAt);
        EXPECT_NE(find(*st, "nesting-too-deep")->message.find("64 levels"), std::string::npos);
    }
    // Within the bound it is an ordinary event.
    const std::string ok = "[" + std::string(R"({"ph":"X","name":"n","pid":1,"tid":1,"ts":5,)") +
                           R"("dur":1,"args":{"a":)" + std::string(50, '[') + std::string(50, ']') +
                           "}}]";
    ImportOptions o;
    o.maxJsonDepth = 64;
    auto st = importChromeTraceBytes(ok, o);
    ASSERT_TRUE(st.isOk());
    EXPECT_EQ(st->sliceCount(), 1u);
    EXPECT_EQ(count(*st, "nesting-too-deep"), 0u);
}

TEST(Limits, ChromeProcessesAndThreadsOverTheBoundAreSkippedAndCounted) {
    std::string json = "[";
    for (int p = 1; p <= 10; ++p)
        json += slice(p, 1, p) + ",";
    for (int t = 2; t <= 10; ++t)
        json += slice(1, t, t) + ",";
    json.back() = ']';
    ImportOptions o;
    o.maxProcesses = 3;
    o.maxThreads = 5;
    auto st = importChromeTraceBytes(json, o, "many.json");
    ASSERT_TRUE(st.isOk());
    EXPECT_EQ(st->processes().size(), 3u);
    EXPECT_EQ(st->threads().size(), 5u);
    EXPECT_EQ(count(*st, "too-many-processes"), 7u);
    EXPECT_EQ(count(*st, "too-many-threads"), 7u); // (1..3, 1) and (1, 2..3) fill the 5
    EXPECT_EQ(st->sliceCount(), 3u + 2u);
    const Diagnostic* d = find(*st, "too-many-processes");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->severity, Severity::Error);
    EXPECT_NE(d->message.find("maxProcesses"), std::string::npos);
    EXPECT_EQ(d->offset, 1 + 3 * (slice(1, 1, 1).size() + 1)); // the 4th event
}

TEST(Limits, GzipInflatingPastTheBoundIsRefused) {
    std::string json = "[" + slice(1, 1, 0) + "," + std::string(4 << 20, ' ') + "]";
    const std::string gz = gzip(json);
    ASSERT_LT(gz.size(), 64u << 10);
    ImportOptions o;
    o.maxInflatedBytes = 1 << 20;
    auto refused = importChromeTraceBytes(gz, o, "bomb.json.gz");
    ASSERT_FALSE(refused.isOk());
    EXPECT_EQ(refused.status().code(), ErrorCode::Unsupported);
    EXPECT_NE(refused.status().message().find("maxInflatedBytes"), std::string::npos);
    o.maxInflatedBytes = 8 << 20;
    auto read = importChromeTraceBytes(gz, o, "bomb.json.gz");
    ASSERT_TRUE(read.isOk()) << read.status().toString();
    EXPECT_EQ(read->sliceCount(), 1u);
}

namespace {
std::string stepStats(int nodes, std::int64_t start, std::int64_t dur, int outputs = 0) {
    xt::tf::RunMetadata rm;
    auto* d = rm.mutable_step_stats()->add_dev_stats();
    d->set_device("/device:CPU:0");
    for (int i = 0; i < nodes; ++i) {
        auto* ns = d->add_node_stats();
        ns->set_node_name("n" + std::to_string(i));
        ns->set_timeline_label("n = Op()");
        ns->set_all_start_micros(start);
        ns->set_all_end_rel_micros(dur);
        for (int o = 0; o < outputs; ++o)
            ns->add_output();
    }
    return rm.SerializeAsString();
}
} // namespace

TEST(Limits, StepStatsLanesAndEventsOverTheBoundAreRefusedWithWhere) {
    auto lanes = stepStatsToChromeJson(stepStats(20, 0, 100), StepStatsLimits{10, 1000});
    ASSERT_FALSE(lanes.isOk());
    EXPECT_EQ(lanes.status().code(), ErrorCode::Unsupported);
    EXPECT_NE(lanes.status().message().find("node 10: more than 10 concurrent"), std::string::npos)
        << lanes.status().message();
    EXPECT_NE(lanes.status().message().find("/device:CPU:0"), std::string::npos);
    auto events = stepStatsToChromeJson(stepStats(10, 0, 1, 5), StepStatsLimits{4096, 100});
    ASSERT_FALSE(events.isOk());
    EXPECT_NE(events.status().message().find("160 trace events"), std::string::npos)
        << events.status().message();
    EXPECT_TRUE(stepStatsToChromeJson(stepStats(10, 0, 1, 5), StepStatsLimits{4096, 160}).isOk());
}

TEST(Limits, StepStatsAbsurdTimesAndLabelsAreRead) {
    // Start + duration past INT64_MAX saturates (no signed overflow).
    auto json = stepStatsToChromeJson(stepStats(2, INT64_MAX - 5, INT64_MAX));
    ASSERT_TRUE(json.isOk()) << json.status().toString();
    // A 1 MB label with 100k inputs: parsed by hand, not by a recursive regex.
    xt::tf::RunMetadata rm;
    auto* d = rm.mutable_step_stats()->add_dev_stats();
    d->set_device("/device:CPU:0");
    std::string label = "big = Concat(";
    for (int i = 0; i < 100000; ++i)
        label += (i ? ", in" : "in") + std::to_string(i);
    label += ")";
    auto* ns = d->add_node_stats();
    ns->set_node_name("big");
    ns->set_timeline_label(label);
    auto big = stepStatsToChromeJson(rm.SerializeAsString());
    ASSERT_TRUE(big.isOk());
    EXPECT_NE(big->find(R"("op":"Concat","input0":"in0")"), std::string::npos);
    EXPECT_NE(big->find(R"("input99999":"in99999")"), std::string::npos);
}
