// Opening anything: the byte-level sniffing, the kind of a file (XDL naming, *.xts summaries,
// content), and the sorting of files, directories, globs and URLs into XDL runs and timeline
// files; the import of a timeline by its kind; and `xtrace timeline` on a trace whose JSON
// starts after a line feed and spaces, as recent Kineto versions write them.
#include "core/base/byte_format.h"
#include "core/open/open_plan.h"
#include "core/open/trace_import.h"
#include "core/xdl/file_series_writer.h"
#include "core/xdl/wire.h"
#include "step_stats.pb.h"
#include "temp_dir.h"
#include "xtrace_run.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

using namespace xt;
using namespace xt::open;
using xt::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A small trace, as Kineto writes it: a line feed and spaces before the object.
const std::string kKineto = "\n   {\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n"
                            "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
                            "\"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 5},\n"
                            "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sgemm\", "
                            "\"pid\": 0, \"tid\": 7, \"ts\": 12, \"dur\": 2}\n]}\n";

std::string stepStats() {
    xt::tf::RunMetadata rm;
    auto* d = rm.mutable_step_stats()->add_dev_stats();
    d->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
    auto* ns = d->add_node_stats();
    ns->set_node_name("mm");
    ns->set_timeline_label("mm = MatMul(x, y)");
    ns->set_all_start_micros(5);
    ns->set_all_end_rel_micros(10);
    std::string out;
    rm.SerializeToString(&out);
    return out;
}

// An XDL part: a header and one record, framed.
std::string xdlPart() {
    std::string out;
    const std::string header = xdl::encodeHeader({"loss"});
    xdl::appendLength(out, static_cast<std::uint32_t>(header.size()));
    out += header;
    xdl::RecordEncoder enc;
    enc.begin(1, 1);
    const float loss = 0.5f;
    enc.addColumn(xdl::Dtype::Float, {}, {reinterpret_cast<const std::uint8_t*>(&loss), 4});
    EXPECT_TRUE(enc.finish(1000).isOk());
    out.append(reinterpret_cast<const char*>(enc.framed().data()), enc.framed().size());
    return out;
}

std::string gzipped(const std::string& text) {
    std::string out(compressBound(uLong(text.size())) + 64, '\0');
    z_stream zs{};
    EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs.avail_in = uInt(text.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = uInt(out.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

void write(const std::string& path, const std::string& bytes) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

// A run of two steps on rank `rank` in `dir`, written by the XDL writer.
void writeRun(const std::string& dir, int rank = 0) {
    xdl::WriterOptions o;
    o.outputDir = dir;
    o.rank = rank;
    auto w = xdl::FileSeriesWriter::create(o, {"loss"});
    ASSERT_TRUE(w.isOk()) << w.status().toString();
    xdl::RecordEncoder enc;
    for (std::int64_t g = 0; g < 2; ++g) {
        enc.begin(g, g);
        const float loss = 1.0f;
        enc.addColumn(xdl::Dtype::Float, {}, {reinterpret_cast<const std::uint8_t*>(&loss), 4});
        ASSERT_TRUE(enc.finish(1000 + g).isOk());
        ASSERT_TRUE((*w)->write(enc.framed(), g, g, 1000 + g).isOk());
    }
    ASSERT_TRUE((*w)->close().isOk());
}

std::vector<std::string> names(const std::vector<TraceFile>& traces) {
    std::vector<std::string> out;
    for (const auto& t : traces)
        out.push_back(fs::path(t.path).filename().string());
    return out;
}

} // namespace

TEST(ByteFormat, ContainersTextAndMessages) {
    EXPECT_EQ(sniffBytes("", 0), ByteFormat::Empty);
    EXPECT_EQ(sniffBytes(gzipped("{}"), 22), ByteFormat::Gzip);
    EXPECT_EQ(sniffBytes(std::string("PK\3\4\24\0", 6), 100), ByteFormat::Zip);
    EXPECT_EQ(sniffBytes("{\"traceEvents\": []}", 19), ByteFormat::JsonText);
    EXPECT_EQ(sniffBytes("[{\"ph\": \"X\"}]", 13), ByteFormat::JsonText);
    // A line feed is also protobuf's tag of field 1: the JSON rule comes first.
    EXPECT_EQ(sniffBytes(kKineto, kKineto.size()), ByteFormat::JsonText);
    EXPECT_EQ(sniffBytes("\xEF\xBB\xBF \t\r\n[]", 9), ByteFormat::JsonText);
    EXPECT_EQ(sniffBytes("\xEF\xBB\xBFhello", 8), ByteFormat::Other);
    EXPECT_EQ(sniffBytes("hello", 5), ByteFormat::Other);
    const std::string part = xdlPart();
    EXPECT_EQ(sniffBytes(part, part.size()), ByteFormat::LengthPrefixed);
    const std::string ss = stepStats();
    EXPECT_EQ(sniffBytes(ss, ss.size()), ByteFormat::Protobuf);
    // A length that runs past the end of the file is not a message.
    EXPECT_EQ(sniffBytes(ss, ss.size() - 5), ByteFormat::Other);
    // Only the first kSniffBytes count: JSON later than that is not recognised.
    const std::string late = std::string(kSniffBytes, ' ') + "{}";
    EXPECT_EQ(sniffBytes(late, late.size()), ByteFormat::Other);
    EXPECT_EQ(skipBomAndWhitespace("\xEF\xBB\xBF\n  {"), 6u);
}

TEST(TraceKind, NamesFirstThenContent) {
    const std::string part = xdlPart(), ss = stepStats();
    // XDL naming wins over content, even for an empty part being written.
    EXPECT_EQ(detectTraceKind("train.trace.0.1", "", 0), TraceKind::XdlPart);
    EXPECT_EQ(detectTraceKind("train.my.model.3.12", kKineto, kKineto.size()), TraceKind::XdlPart);
    EXPECT_EQ(detectTraceKind("train.trace.0.1.meta", "", 0), TraceKind::XdlPart);
    // Summaries beside the parts are never traces, whatever they hold.
    EXPECT_EQ(detectTraceKind("train.trace.0.1.xts", kKineto, kKineto.size()),
              TraceKind::XdlSummary);
    EXPECT_EQ(detectTraceKind("worker0.1623143566756.pt.trace.json", kKineto, kKineto.size()),
              TraceKind::ChromeTrace);
    EXPECT_EQ(detectTraceKind("trace", kKineto, kKineto.size()), TraceKind::ChromeTrace);
    const std::string gz = gzipped(kKineto);
    EXPECT_EQ(detectTraceKind("rank-0.pt.trace.json.gz", gz, gz.size()), TraceKind::ChromeTrace);
    EXPECT_EQ(detectTraceKind("profile.zip", std::string("PK\3\4\24\0", 6), 100),
              TraceKind::ChromeTrace);
    EXPECT_EQ(detectTraceKind("run_metadata.pb", ss, ss.size()), TraceKind::StepStats);
    EXPECT_EQ(detectTraceKind("odd-name.bin", part, part.size()), TraceKind::XdlPart);
    EXPECT_EQ(detectTraceKind("notes.json", "hello", 5), TraceKind::Unknown);
    EXPECT_EQ(detectTraceKind("empty.json", "", 0), TraceKind::Unknown);

    TempDir dir;
    write(dir.file("k.json"), kKineto);
    EXPECT_EQ(detectTraceKind(dir.file("k.json")), TraceKind::ChromeTrace);
    EXPECT_EQ(detectTraceKind(dir.str()), TraceKind::Directory);
    EXPECT_EQ(detectTraceKind(dir.file("missing.json")), TraceKind::Missing);
}

TEST(OpenPlan, FilesBySortedKind) {
    TempDir dir;
    writeRun(dir.str());
    write(dir.file("k.json"), kKineto);
    write(dir.file("k2.json.gz"), gzipped(kKineto));
    write(dir.file("m.pb"), stepStats());
    write(dir.file("train.trace.0.1.xts"), "summary");
    write(dir.file("notes.txt"), "hello");
    auto plan = planOpen({dir.file("k.json"), dir.file("m.pb"), dir.file("train.trace.0.1"),
                          dir.file("train.trace.0.1.xts"), dir.file("notes.txt"),
                          dir.file("missing"), dir.file("k2.json.gz")});
    ASSERT_TRUE(plan.isOk()) << plan.status().toString();
    ASSERT_EQ(plan->inputs.size(), 7u);
    const auto& in = plan->inputs;
    EXPECT_EQ(names(in[0].traces), std::vector<std::string>{"k.json"});
    EXPECT_EQ(in[0].traces[0].kind, TraceKind::ChromeTrace);
    EXPECT_FALSE(in[0].runs);
    EXPECT_EQ(in[1].traces.at(0).kind, TraceKind::StepStats);
    EXPECT_TRUE(in[2].runs);
    EXPECT_TRUE(in[2].traces.empty());
    // A summary named alone opens nothing.
    EXPECT_FALSE(in[3].runs);
    EXPECT_TRUE(in[3].traces.empty());
    EXPECT_EQ(in[3].skipped.size(), 1u);
    // Unknown content and missing paths go to the XDL reader, which reports them.
    EXPECT_TRUE(in[4].runs);
    EXPECT_TRUE(in[5].runs);
    EXPECT_EQ(plan->runPaths(),
              (std::vector<std::string>{dir.file("train.trace.0.1"), dir.file("notes.txt"),
                                        dir.file("missing")}));
    EXPECT_EQ(names(plan->traces()), (std::vector<std::string>{"k.json", "m.pb", "k2.json.gz"}));
}

TEST(OpenPlan, DirectoriesHoldRunsTracesOrBoth) {
    TempDir dir;
    // Runs only, with summaries beside the parts.
    writeRun(dir.file("runs"), 0);
    writeRun(dir.file("runs"), 1);
    write(dir.file("runs/train.trace.0.1.xts"), "summary");
    // Traces only; a file that is not one (by name or content) is left out.
    write(dir.file("traces/rank0.pt.trace.json"), kKineto);
    write(dir.file("traces/rank1.pt.trace.json.gz"), gzipped(kKineto));
    write(dir.file("traces/readme.txt"), "{}");
    write(dir.file("traces/broken.json"), "hello");
    // Both, and traces one level down (one directory per rank).
    writeRun(dir.file("both"));
    write(dir.file("both/trace.json"), kKineto);
    write(dir.file("nested/r0/t.json"), kKineto);
    write(dir.file("nested/r1/t.json"), kKineto);
    fs::create_directories(dir.file("empty"));
    auto plan = planOpen({dir.file("runs"), dir.file("traces"), dir.file("both"),
                          dir.file("nested"), dir.file("empty")});
    ASSERT_TRUE(plan.isOk()) << plan.status().toString();
    const auto& in = plan->inputs;
    EXPECT_TRUE(in[0].runs);
    EXPECT_TRUE(in[0].traces.empty());
    EXPECT_EQ(in[0].skipped.size(), 1u);
    EXPECT_FALSE(in[1].runs);
    EXPECT_EQ(names(in[1].traces),
              (std::vector<std::string>{"rank0.pt.trace.json", "rank1.pt.trace.json.gz"}));
    EXPECT_TRUE(in[2].runs);
    EXPECT_EQ(names(in[2].traces), std::vector<std::string>{"trace.json"});
    EXPECT_FALSE(in[3].runs);
    ASSERT_EQ(in[3].traces.size(), 2u);
    EXPECT_EQ(fs::path(in[3].traces[1].path).parent_path().filename(), "r1");
    // Nothing found: still the XDL reader's to report ("no-runs").
    EXPECT_TRUE(in[4].runs);
    EXPECT_TRUE(in[4].traces.empty());
}

TEST(OpenPlan, GlobsAreSortedLikeDirectoryEntries) {
    TempDir dir;
    writeRun(dir.str());
    write(dir.file("train.trace.0.1.xts"), "summary");
    write(dir.file("a.json"), kKineto);
    write(dir.file("b.json"), kKineto);
    auto traces = planOpen({dir.file("*.json")});
    ASSERT_TRUE(traces.isOk());
    EXPECT_FALSE(traces->inputs[0].runs);
    EXPECT_EQ(names(traces->traces()), (std::vector<std::string>{"a.json", "b.json"}));
    auto runs = planOpen({dir.file("train.*")});
    ASSERT_TRUE(runs.isOk());
    EXPECT_TRUE(runs->inputs[0].runs);
    EXPECT_EQ(runs->inputs[0].local, dir.file("train.*")); // the XDL reader expands it itself
    EXPECT_TRUE(runs->inputs[0].traces.empty());
    EXPECT_EQ(runs->inputs[0].skipped.size(), 1u);
    auto none = planOpen({dir.file("*.nothing")});
    ASSERT_FALSE(none.isOk());
    EXPECT_EQ(none.status().code(), ErrorCode::NotFound);
}

TEST(OpenPlan, UrlsAreSortedThroughTheirMirror) {
    TempDir dir;
    write(dir.file("mirror/host/traces/k.json"), kKineto);
    writeRun(dir.file("mirror/host/run"));
    std::vector<std::string> asked;
    OpenOptions o;
    o.mirror = [&](const std::string& url,
                   const ProgressCallback&) -> Result<storage::MirrorStatus> {
        asked.push_back(url);
        if (url.find("missing") != std::string::npos)
            return Status(ErrorCode::NotFound, "no such path: " + url);
        storage::MirrorStatus st;
        st.url = url;
        st.localPath = dir.file("mirror/host" + url.substr(url.find('/', url.find("://") + 3)));
        st.offline = url.find("run") != std::string::npos;
        st.offlineReason = "connection refused";
        return st;
    };
    auto plan = planOpen({"hdfs://host:8020/traces/k.json", "webhdfs://host:9870/run",
                          dir.file("mirror/host/traces/k.json")},
                         o);
    ASSERT_TRUE(plan.isOk()) << plan.status().toString();
    EXPECT_EQ(asked.size(), 2u); // local paths are not mirrored
    EXPECT_EQ(plan->inputs[0].input, "hdfs://host:8020/traces/k.json");
    EXPECT_EQ(plan->inputs[0].local, dir.file("mirror/host/traces/k.json"));
    EXPECT_EQ(names(plan->inputs[0].traces), std::vector<std::string>{"k.json"});
    EXPECT_TRUE(plan->inputs[1].runs);
    EXPECT_EQ(plan->runPaths(), std::vector<std::string>{dir.file("mirror/host/run")});
    ASSERT_EQ(plan->mirrored.size(), 2u);
    EXPECT_EQ(plan->diagnostics.countsByCode().at("hdfs-offline"), 1u);
    auto missing = planOpen({"hdfs://host:8020/missing"}, o);
    ASSERT_FALSE(missing.isOk());
    EXPECT_EQ(missing.status().code(), ErrorCode::NotFound);
}

TEST(TraceImport, ByKind) {
    TempDir dir;
    write(dir.file("k.json"), kKineto);
    write(dir.file("k.json.gz"), gzipped(kKineto));
    write(dir.file("bom.json"), "\xEF\xBB\xBF" + kKineto);
    write(dir.file("m.pb"), stepStats());
    for (const char* f : {"k.json", "k.json.gz", "bom.json"}) {
        auto st = importTimeline(dir.file(f));
        ASSERT_TRUE(st.isOk()) << f << ": " << st.status().toString();
        EXPECT_EQ(st->sliceCount(), 2u) << f;
    }
    auto tf = importTimeline(dir.file("m.pb"));
    ASSERT_TRUE(tf.isOk()) << tf.status().toString();
    EXPECT_EQ(tf->report().container, "stepstats");
    EXPECT_GE(tf->sliceCount(), 1u);
    EXPECT_FALSE(importTimeline(dir.file("missing.json")).isOk());
}

TEST(TraceImport, XtraceTimelineOpensAKinetoTraceThatStartsWithWhitespace) {
    TempDir dir;
    write(dir.file("trace.json"), kKineto);
    write(dir.file("m.pb"), stepStats());
    const auto r = xt::test::runXtrace("timeline " + dir.file("trace.json") + " --json");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("\"events\":2"), std::string::npos) << r.out;
    // A directory holding one trace names it; StepStats still goes through the TF semantics.
    fs::create_directories(dir.file("one"));
    write(dir.file("one/trace.json"), kKineto);
    EXPECT_EQ(xt::test::runXtrace("timeline " + dir.file("one") + " --json").status, 0);
    const auto tf = xt::test::runXtrace("timeline " + dir.file("m.pb") + " --json");
    ASSERT_EQ(tf.status, 0);
    EXPECT_NE(tf.out.find("\"events\":"), std::string::npos);
    // Several traces: name one (usage error); and the two-file diff on the same trace.
    EXPECT_EQ(xt::test::runXtrace("timeline " + dir.str()).status, 1);
    EXPECT_EQ(xt::test::runXtrace("timeline-diff " + dir.file("trace.json") + " " +
                                  dir.file("one/trace.json") + " --json")
                  .status,
              0);
    // An XDL command on a trace says what it is instead of reading it as a run.
    EXPECT_EQ(xt::test::runXtrace("info " + dir.file("trace.json")).status, 2);
}
