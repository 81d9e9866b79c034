// Op summary diff on generated traces with known regressions, and step-vs-step diffs of one trace.
#include "chrome_json.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/op_summary_diff.h"

#include <fmt/core.h>
#include <gtest/gtest.h>

using namespace xt::timeline;

namespace {

using xt::timeline::test::importJson;

// `n` back-to-back X events named `name` of `durUs` each on (pid 1, tid), from `t0`.
std::string xs(const char* name, const char* cat, int tid, int n, int t0, int durUs) {
    std::string s;
    for (int i = 0; i < n; ++i)
        s +=
            fmt::format(R"({{"ph":"X","name":"{}","cat":"{}","pid":1,"tid":{},"ts":{},"dur":{}}},)",
                        name, cat, tid, t0 + i * durUs, durUs);
    return s;
}

std::string trace(std::string events) {
    events.pop_back(); // trailing comma
    return "[" + events + "]";
}

const OpDiffRow* find(const OpDiff& d, std::string_view name, std::string_view cat = {}) {
    for (const auto& r : d.rows)
        if (r.name == name && r.cat == cat) return &r;
    return nullptr;
}

} // namespace

TEST(OpSummaryDiff, MatmulRegressionAndOneSidedOps) {
    // A: matmul 10 x 100 us, add 5 x 10 us, "gone" once. B: matmul 10 x 150 us, add 5 x 10 us
    // on another thread, "fresh" twice. Names are interned in a different order in B.
    const auto a =
        importJson(trace(xs("matmul", "cpu_op", 1, 10, 0, 100) + xs("add", "cpu_op", 2, 5, 0, 10) +
                         xs("gone", "cpu_op", 3, 1, 0, 7)));
    const auto b =
        importJson(trace(xs("fresh", "kernel", 3, 2, 0, 30) + xs("add", "cpu_op", 4, 5, 0, 10) +
                         xs("matmul", "cpu_op", 1, 10, 0, 150)));
    const OpDiff d = diffOpSummaries(a, b);
    ASSERT_EQ(d.rows.size(), 4u);
    // Regression first: matmul +500 us, fresh +60 us, add 0, gone -7 us.
    EXPECT_EQ(d.rows[0].name, "matmul");
    EXPECT_EQ(d.rows[1].name, "fresh");
    EXPECT_EQ(d.rows[2].name, "add");
    EXPECT_EQ(d.rows[3].name, "gone");
    const OpDiffRow& mm = d.rows[0];
    EXPECT_EQ(mm.presence, OpPresence::Both);
    EXPECT_EQ(mm.countA, 10u);
    EXPECT_EQ(mm.countB, 10u);
    EXPECT_EQ(mm.countDelta(), 0);
    EXPECT_EQ(mm.totalA, 1'000'000);
    EXPECT_EQ(mm.totalB, 1'500'000);
    EXPECT_EQ(mm.totalDelta(), 500'000);
    EXPECT_EQ(mm.selfDelta(), 500'000);
    EXPECT_DOUBLE_EQ(mm.avgA, 100'000);
    EXPECT_DOUBLE_EQ(mm.avgDelta(), 50'000);
    ASSERT_TRUE(mm.relativeChange().has_value());
    EXPECT_DOUBLE_EQ(*mm.relativeChange(), 0.5);
    const OpDiffRow& fresh = d.rows[1];
    EXPECT_EQ(fresh.presence, OpPresence::OnlyCandidate);
    EXPECT_EQ(fresh.countA, 0u);
    EXPECT_EQ(fresh.countB, 2u);
    EXPECT_EQ(fresh.totalDelta(), 60'000);
    EXPECT_FALSE(fresh.relativeChange().has_value());
    EXPECT_EQ(d.rows[2].totalDelta(), 0);
    EXPECT_EQ(d.rows[3].presence, OpPresence::OnlyBaseline);
    EXPECT_DOUBLE_EQ(*d.rows[3].relativeChange(), -1.0);
    EXPECT_EQ(d.onlyA, 1u);
    EXPECT_EQ(d.onlyB, 1u);
    EXPECT_EQ(d.totalA, 1'000'000 + 50'000 + 7'000);
    EXPECT_EQ(d.totalB, 1'500'000 + 50'000 + 60'000);
    EXPECT_EQ(d.countA, 16u);
    EXPECT_EQ(d.countB, 17u);

    OpDiffOptions o;
    o.sortBy = OpDiffSortKey::Name;
    o.descending = false;
    const OpDiff byName = diffOpSummaries(a, b, o);
    ASSERT_EQ(byName.rows.size(), 4u);
    EXPECT_EQ(byName.rows[0].name, "add");
    EXPECT_EQ(byName.rows[3].name, "matmul");
    o.sortBy = OpDiffSortKey::Relative;
    o.descending = true;
    o.limit = 2;
    const OpDiff rel = diffOpSummaries(a, b, o);
    ASSERT_EQ(rel.rows.size(), 2u);
    EXPECT_EQ(rel.rows[0].name, "fresh"); // no baseline: infinitely worse
    EXPECT_EQ(rel.rows[1].name, "matmul");
    EXPECT_EQ(rel.totalB, d.totalB); // totals over every row, not just the kept ones
    o.sortBy = OpDiffSortKey::TotalDelta;
    o.descending = false;
    o.limit = 0;
    EXPECT_EQ(diffOpSummaries(a, b, o).rows.front().name, "gone"); // largest improvement
}

TEST(OpSummaryDiff, ByCategoryKeepsCategoriesApart) {
    const auto a =
        importJson(trace(xs("copy", "cpu_op", 1, 2, 0, 10) + xs("copy", "kernel", 2, 1, 0, 5)));
    const auto b =
        importJson(trace(xs("copy", "cpu_op", 1, 2, 0, 10) + xs("copy", "gpu_memcpy", 2, 1, 0, 5)));
    EXPECT_EQ(diffOpSummaries(a, b).rows.size(), 1u);
    OpDiffOptions o;
    o.byCategory = true;
    const OpDiff d = diffOpSummaries(a, b, o);
    ASSERT_EQ(d.rows.size(), 3u);
    ASSERT_NE(find(d, "copy", "cpu_op"), nullptr);
    EXPECT_EQ(find(d, "copy", "cpu_op")->presence, OpPresence::Both);
    ASSERT_NE(find(d, "copy", "kernel"), nullptr);
    EXPECT_EQ(find(d, "copy", "kernel")->presence, OpPresence::OnlyBaseline);
    ASSERT_NE(find(d, "copy", "gpu_memcpy"), nullptr);
    EXPECT_EQ(find(d, "copy", "gpu_memcpy")->presence, OpPresence::OnlyCandidate);
}

TEST(OpSummaryDiff, StepAgainstStepOfOneTrace) {
    // Step 1 [0, 1000): conv 2 x 100 us; step 2 [1000, 2500): conv 3 x 100 us, relu 1 x 50 us.
    const auto st = importJson(trace(
        std::string(
            R"({"ph":"X","name":"ProfilerStep#1","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":1000},)") +
        R"({"ph":"X","name":"ProfilerStep#2","cat":"user_annotation","pid":1,"tid":1,"ts":1000,"dur":1500},)" +
        xs("conv", "cpu_op", 1, 2, 10, 100) + xs("conv", "cpu_op", 1, 3, 1010, 100) +
        xs("relu", "cpu_op", 1, 1, 1400, 50)));
    const auto w1 = findStepWindow(st, "ProfilerStep#1");
    const auto w2 = findStepWindow(st, "ProfilerStep#2");
    ASSERT_TRUE(w1 && w2);
    EXPECT_EQ(w1->t0, 0);
    EXPECT_EQ(w1->t1, 1'000'000);
    EXPECT_EQ(w2->t0, 1'000'000);
    EXPECT_EQ(w2->t1, 2'500'000);
    EXPECT_FALSE(findStepWindow(st, "ProfilerStep#3"));
    EXPECT_FALSE(findStepWindow(st, "ProfilerStep#"));

    OpDiffOptions o;
    o.windowA = *w1;
    o.windowB = *w2;
    o.excludeNames = {"ProfilerStep#1", "ProfilerStep#2"};
    const OpDiff d = diffOpSummaries(st, st, o);
    ASSERT_EQ(d.rows.size(), 2u);
    EXPECT_EQ(d.rows[0].name, "conv");
    EXPECT_EQ(d.rows[0].countA, 2u);
    EXPECT_EQ(d.rows[0].countB, 3u);
    EXPECT_EQ(d.rows[0].countDelta(), 1);
    EXPECT_EQ(d.rows[0].totalDelta(), 100'000);
    EXPECT_DOUBLE_EQ(d.rows[0].avgDelta(), 0);
    EXPECT_EQ(d.rows[1].name, "relu");
    EXPECT_EQ(d.rows[1].presence, OpPresence::OnlyCandidate);
    // Without the exclusion the markers are one-sided ops; a whole-trace self diff is all zero.
    o.excludeNames.clear();
    EXPECT_EQ(diffOpSummaries(st, st, o).rows.size(), 4u);
    const OpDiff self = diffOpSummaries(st, st);
    for (const auto& r : self.rows) {
        EXPECT_EQ(r.presence, OpPresence::Both);
        EXPECT_EQ(r.totalDelta(), 0);
    }
}
