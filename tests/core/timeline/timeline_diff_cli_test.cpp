// Runs the built `xtrace timeline-diff` / `xtrace timeline --csv` on corpus traces and checks the
// JSON (parsed with simdjson) and the CSV against the core diff computed here.
#include "core/export/op_summary_csv.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/op_summary_diff.h"
#include "temp_dir.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "shared_corpus.h"
#include "xtrace_run.h"

using namespace xt::timeline;

namespace {

using xt::test::RunResult;

RunResult run(const std::string& args) {
    return xt::test::runXtrace(args);
}

std::string corpus(const std::string& rel) {
    return xt::test::chromeCorpus(rel);
}

TraceStore load(const std::string& path) {
    auto r = importChromeTrace(path);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return std::move(r.value());
}

std::string slurp(const std::string& path) {
    std::stringstream ss;
    ss << std::ifstream(path).rdbuf();
    return ss.str();
}

const std::string kBase = "hta/trace_compare__base__base.json.gz";
const std::string kTest = "hta/trace_compare__test__test.json.gz";
const std::string kResnet =
    "kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz";

// Every row of the JSON equals the core diff's row, in order.
void expectRowsEqual(simdjson::dom::array rows, const OpDiff& d, std::size_t n) {
    ASSERT_EQ(rows.size(), n);
    std::size_t i = 0;
    for (simdjson::dom::element row : rows) {
        const OpDiffRow& r = d.rows[i++];
        EXPECT_EQ(std::string_view(row["name"]), r.name);
        EXPECT_EQ(std::string_view(row["status"]), opPresenceName(r.presence));
        EXPECT_EQ(uint64_t(row["count_a"]), r.countA);
        EXPECT_EQ(uint64_t(row["count_b"]), r.countB);
        EXPECT_EQ(int64_t(row["count_delta"]), r.countDelta());
        EXPECT_NEAR(double(row["total_delta_us"]), r.totalDelta() / 1000.0, 1e-6);
        EXPECT_NEAR(double(row["avg_b_us"]), r.avgB / 1000.0, 1e-6);
        if (const auto rel = r.relativeChange())
            EXPECT_NEAR(double(row["relative_change"]), *rel, 1e-12);
        else
            EXPECT_TRUE(row["relative_change"].is_null());
    }
}

} // namespace

TEST(TimelineDiffCli, TwoTracesJsonEqualsTheCoreDiff) {
    XT_REQUIRE_SHARED_CORPUS();
    const auto r = run("timeline-diff " + corpus(kBase) + " " + corpus(kTest) + " --json --top 0");
    ASSERT_EQ(r.status, 0);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;

    const TraceStore a = load(corpus(kBase)), b = load(corpus(kTest));
    const OpDiff d = diffOpSummaries(a, b);
    EXPECT_TRUE(doc["baseline"]["step"].is_null());
    EXPECT_EQ(uint64_t(doc["baseline"]["slices"]), d.countA);
    EXPECT_EQ(uint64_t(doc["candidate"]["slices"]), d.countB);
    EXPECT_EQ(uint64_t(doc["ops"]), d.rows.size());
    EXPECT_EQ(uint64_t(doc["only_b"]), d.onlyB);
    EXPECT_GT(d.onlyB, 0u); // the test trace has ops the base one lacks
    EXPECT_NEAR(double(doc["total_delta_us"]), (d.totalB - d.totalA) / 1000.0, 1e-6);
    EXPECT_FALSE(bool(doc["by_category"]));
    expectRowsEqual(doc["rows"], d, d.rows.size());

    // --top limits the rows but not "ops"; --by-category adds "category".
    const auto t = run("timeline-diff " + corpus(kBase) + " " + corpus(kTest) +
                       " --json --top 3 --by-category");
    ASSERT_EQ(t.status, 0);
    simdjson::dom::element top;
    ASSERT_EQ(parser.parse(t.out).get(top), simdjson::SUCCESS);
    OpDiffOptions o;
    o.byCategory = true;
    const OpDiff dc = diffOpSummaries(a, b, o);
    EXPECT_EQ(uint64_t(top["ops"]), dc.rows.size());
    expectRowsEqual(top["rows"], dc, 3);
    EXPECT_EQ(std::string_view(top["rows"].at(0)["category"]), dc.rows[0].cat);
}

TEST(TimelineDiffCli, StepAgainstStepAndCsv) {
    XT_REQUIRE_SHARED_CORPUS();
    xt::test::TempDir dir;
    const std::string csv = dir.file("steps.csv");
    const auto r = run("timeline-diff " + corpus(kResnet) + " " + corpus(kResnet) +
                       " --step-a 17 --step-b ProfilerStep#18 --json --top 5 --csv " + csv);
    ASSERT_EQ(r.status, 0);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
    EXPECT_EQ(std::string_view(doc["baseline"]["step"]), "ProfilerStep#17");
    EXPECT_EQ(std::string_view(doc["candidate"]["step"]), "ProfilerStep#18");

    const TraceStore st = load(corpus(kResnet));
    OpDiffOptions o;
    o.windowA = *findStepWindow(st, "ProfilerStep#17");
    o.windowB = *findStepWindow(st, "ProfilerStep#18");
    o.excludeNames = {"ProfilerStep#17", "ProfilerStep#18"};
    const OpDiff d = diffOpSummaries(st, st, o);
    EXPECT_NEAR(double(doc["baseline"]["start_us"]), o.windowA.t0 / 1000.0, 1e-3);
    EXPECT_NEAR(double(doc["candidate"]["end_us"]), o.windowB.t1 / 1000.0, 1e-3);
    EXPECT_EQ(uint64_t(doc["baseline"]["slices"]), d.countA);
    EXPECT_GT(d.countA, 1000u);
    expectRowsEqual(doc["rows"], d, 5);
    // The CSV has every row, not just --top.
    EXPECT_EQ(slurp(csv), xt::opDiffCsv(d, false));

    EXPECT_EQ(
        run("timeline-diff " + corpus(kResnet) + " " + corpus(kResnet) + " --step-a 5").status, 1);
    EXPECT_EQ(run("timeline-diff /nonexistent.json " + corpus(kBase)).status, 2);
    EXPECT_EQ(run("timeline-diff " + corpus(kBase)).status, 1);
    EXPECT_EQ(run("timeline-diff " + corpus(kBase) + " " + corpus(kBase) + " --sort nope").status,
              1);
}

TEST(TimelineDiffCli, TimelineCsvIsTheWholeOpSummary) {
    XT_REQUIRE_SHARED_CORPUS();
    xt::test::TempDir dir;
    const std::string csv = dir.file("ops.csv");
    ASSERT_EQ(run("timeline " + corpus("catapult/x_event_trace.json") + " --csv " + csv).status, 0);
    const TraceStore st = load(corpus("catapult/x_event_trace.json"));
    EXPECT_EQ(slurp(csv), xt::opSummaryCsv(st, opSummary(st), false));
}
