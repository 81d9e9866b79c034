// Op summary CSV: RFC 4180 quoting round-trips through a small parser, totals equal opSummary,
// diff CSV rows equal the diff, and writes are atomic.
#include "chrome_json.h"
#include "core/export/op_summary_csv.h"
#include "core/export/stats_csv.h"
#include "core/timeline/chrome_trace_reader.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace xt;
using namespace xt::timeline;

namespace {

using xt::timeline::test::importJson;

// A strict RFC 4180 reader: rows of fields; quoted fields may hold commas, "" and newlines.
std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            row.push_back(std::move(field));
            field.clear();
            rows.push_back(std::move(row));
            row.clear();
        } else {
            field += c;
        }
    }
    EXPECT_FALSE(quoted);
    EXPECT_TRUE(field.empty() && row.empty()) << "no final newline";
    return rows;
}

std::int64_t microsToNs(const std::string& s) {
    // "12.345" / "-0.500": exact back to nanoseconds.
    const bool neg = !s.empty() && s[0] == '-';
    const auto dot = s.find('.');
    EXPECT_NE(dot, std::string::npos) << s;
    EXPECT_EQ(s.size() - dot, 4u) << s;
    const std::int64_t v =
        std::stoll(s.substr(neg, dot - neg)) * 1000 + std::stoll(s.substr(dot + 1));
    return neg ? -v : v;
}

// Names that need quoting (JSON escapes: \" and \n).
const char* kTrace = R"([
  {"ph":"X","name":"aten::add, out","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":100.5},
  {"ph":"X","name":"say \"hi\"","cat":"cpu,op","pid":1,"tid":1,"ts":10,"dur":20.25},
  {"ph":"X","name":"two\nlines","cat":"kernel","pid":1,"tid":2,"ts":0,"dur":3},
  {"ph":"X","name":"plain","cat":"kernel","pid":1,"tid":2,"ts":5,"dur":0.001},
  {"ph":"X","name":"plain","cat":"kernel","pid":1,"tid":2,"ts":6,"dur":0.002}
])";

} // namespace

TEST(OpSummaryCsv, MicrosAreExact) {
    std::string s;
    appendMicros(s, 0);
    s += ' ';
    appendMicros(s, 1);
    s += ' ';
    appendMicros(s, -1500);
    s += ' ';
    appendMicros(s, 1'623'143'093'656'013'123);
    EXPECT_EQ(s, "0.000 0.001 -1.500 1623143093656013.123");
    std::string q;
    appendCsvField(q, "a\"b,c");
    EXPECT_EQ(q, "\"a\"\"b,c\"");
}

TEST(OpSummaryCsv, QuotingRoundTripsAndTotalsEqualTheSummary) {
    const TraceStore st = importJson(kTrace);
    const auto ops = opSummary(st);
    for (bool byCat : {false, true}) {
        OpSummaryOptions o;
        o.byCategory = byCat;
        const auto rows = opSummary(st, o);
        const auto parsed = parseCsv(opSummaryCsv(st, rows, byCat));
        ASSERT_EQ(parsed.size(), rows.size() + 1);
        const std::size_t off = byCat ? 1 : 0;
        EXPECT_EQ(parsed[0].size(), 7 + off);
        EXPECT_EQ(parsed[0][0], "name");
        EXPECT_EQ(parsed[0][2 + off], "total_us");
        std::int64_t sum = 0, all = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& p = parsed[i + 1];
            ASSERT_EQ(p.size(), 7 + off);
            EXPECT_EQ(p[0], st.str(rows[i].name));
            if (byCat) EXPECT_EQ(p[1], st.str(rows[i].cat));
            EXPECT_EQ(std::stoull(p[1 + off]), rows[i].count);
            EXPECT_EQ(microsToNs(p[2 + off]), rows[i].totalNs);
            EXPECT_EQ(microsToNs(p[3 + off]), rows[i].selfNs);
            EXPECT_EQ(microsToNs(p[5 + off]), rows[i].minNs);
            EXPECT_EQ(microsToNs(p[6 + off]), rows[i].maxNs);
            sum += microsToNs(p[2 + off]);
        }
        for (auto d : st.sliceDuration())
            all += d;
        EXPECT_EQ(sum, all);
    }
    // The names survived: quotes, comma, newline.
    const auto parsed = parseCsv(opSummaryCsv(st, ops, false));
    std::vector<std::string> names;
    for (std::size_t i = 1; i < parsed.size(); ++i)
        names.push_back(parsed[i][0]);
    EXPECT_NE(std::find(names.begin(), names.end(), "say \"hi\""), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "two\nlines"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "aten::add, out"), names.end());
    // avg of plain: (1 + 2) / 2 = 1.5 ns, rounded to 2 ns.
    for (std::size_t i = 1; i < parsed.size(); ++i)
        if (parsed[i][0] == "plain") EXPECT_EQ(parsed[i][4], "0.002");
}

TEST(OpSummaryCsv, DiffRowsAndAtomicWrite) {
    const TraceStore a = importJson(kTrace);
    const TraceStore b = importJson(R"([
      {"ph":"X","name":"aten::add, out","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":150.5},
      {"ph":"X","name":"new \"op\"","cat":"cpu_op","pid":1,"tid":1,"ts":200,"dur":4}
    ])");
    const OpDiff d = diffOpSummaries(a, b);
    xt::test::TempDir dir;
    const std::string path = dir.file("diff.csv");
    ASSERT_TRUE(writeOpDiffCsv(path, d, false).isOk());
    std::stringstream ss;
    ss << std::ifstream(path).rdbuf();
    const auto parsed = parseCsv(ss.str());
    ASSERT_EQ(parsed.size(), d.rows.size() + 1);
    EXPECT_EQ(parsed[0].size(), 15u);
    EXPECT_EQ(parsed[0][1], "status");
    EXPECT_EQ(parsed[0][14], "relative_change");
    // First row: the regression of "aten::add, out" by 50 us, relative 50/100.5.
    EXPECT_EQ(parsed[1][0], "aten::add, out");
    EXPECT_EQ(parsed[1][1], "both");
    EXPECT_EQ(parsed[1][7], "50.000");
    EXPECT_EQ(parsed[1][14], "0.497512");
    EXPECT_EQ(parsed[2][0], "new \"op\"");
    EXPECT_EQ(parsed[2][1], "only_b");
    EXPECT_EQ(parsed[2][14], ""); // undefined without a baseline
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        EXPECT_EQ(parsed[i + 1][0], d.rows[i].name);
        EXPECT_EQ(microsToNs(parsed[i + 1][5]), d.rows[i].totalA);
        EXPECT_EQ(microsToNs(parsed[i + 1][6]), d.rows[i].totalB);
        EXPECT_EQ(std::stoll(parsed[i + 1][4]), d.rows[i].countDelta());
    }
    // Nothing but the final file is left in the directory.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path()))
        ++files;
    EXPECT_EQ(files, 1u);
    EXPECT_FALSE(writeOpSummaryCsv(dir.file("missing/dir/x.csv"), a, opSummary(a), false).isOk());
}

TEST(OpSummaryCsv, StepBreakdownRowsEqualTheBreakdown) {
    const TraceStore st = importJson(R"([
      {"ph":"X","name":"ProfilerStep#1","cat":"user_annotation","pid":1,"tid":1,"ts":100,"dur":50},
      {"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":110,"dur":20.5},
      {"ph":"X","name":"ProfilerStep#2","cat":"user_annotation","pid":1,"tid":1,"ts":150,"dur":30},
      {"ph":"X","name":"gemm","cat":"kernel","pid":1,"tid":7,"ts":155,"dur":10}
    ])");
    const auto steps = stepBreakdown(st);
    ASSERT_EQ(steps.size(), 2u);
    const auto parsed = parseCsv(stepBreakdownCsv(steps));
    ASSERT_EQ(parsed.size(), 3u);
    const std::vector<std::string> header{"name",
                                          "start_us",
                                          "dur_us",
                                          "bottleneck",
                                          "device_compute_us",
                                          "device_collectives_us",
                                          "memcpy_us",
                                          "kernel_launch_us",
                                          "host_compute_us",
                                          "other_us",
                                          "idle_us"};
    EXPECT_EQ(parsed[0], header);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& p = parsed[i + 1];
        ASSERT_EQ(p.size(), header.size());
        EXPECT_EQ(p[0], steps[i].name);
        EXPECT_EQ(microsToNs(p[1]), steps[i].start);
        EXPECT_EQ(microsToNs(p[2]), steps[i].end - steps[i].start);
        EXPECT_EQ(p[3], stepCategoryName(steps[i].bottleneck));
        std::int64_t sum = 0;
        for (std::size_t c = 0; c < kStepCategoryCount; ++c) {
            EXPECT_EQ(microsToNs(p[4 + c]), steps[i].ns[c]);
            sum += microsToNs(p[4 + c]);
        }
        EXPECT_EQ(sum, steps[i].end - steps[i].start); // categories sum to the step
    }
    EXPECT_EQ(parsed[1][7 + 1], "20.500"); // host_compute of step 1: aten::mm
}
