// `xtrace index`, and stats / hist / export / info over runs with and without summaries: the
// outputs do not change by a byte, and the summaries are what the commands read.
#include "core/summary/summary_store.h"
#include "summary_test_util.h"
#include "xtrace_run.h"

#include <gtest/gtest.h>

using namespace xt;
using xt::test::runXtrace;
using xt::test::TempDir;
namespace fs = std::filesystem;

namespace {

// stdout and stderr together.
xt::test::RunResult runWithStderr(const std::string& args) {
    xt::test::RunResult r;
    FILE* p = popen((std::string(XTRACE_BIN) + " " + args + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
        r.out.append(buf, n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

// Every output whose bytes must not depend on summaries.
std::vector<std::pair<std::string, std::string>> outputs(const std::string& run,
                                                         const TempDir& out) {
    std::vector<std::pair<std::string, std::string>> o;
    for (const std::string args :
         {"stats " + run, "stats " + run + " --format csv",
          "stats " + run + " --key '^(float|double|big)$' --rank 1",
          "hist " + run + " --key float --json", "hist " + run + " --key double --bins 7",
          "hist " + run + " --key int8 --steps 3:20 --json",
          "hist " + run + " --key float --scale symlog --json",
          "hist " + run + " --key same --json", "hist " + run + " --key once --json"}) {
        auto r = runXtrace(args);
        o.emplace_back(args, std::to_string(r.status) + "\n" + r.out);
    }
    const std::string csv = out.file("export.csv");
    auto r = runXtrace("export " + run + " --csv " + csv + " --key '^(int|float|bool)'");
    o.emplace_back("export", std::to_string(r.status) + "\n" + xt::test::readBytes(csv));
    return o;
}

class SummaryCli : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("XDG_CACHE_HOME", m_cache.str().c_str(), 1); // inherited by xtrace
        xt::test::writeRun(m_run.str(), 2, 24);
    }
    void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }
    std::vector<std::string> parts() const {
        std::vector<std::string> p;
        for (const auto& e : fs::directory_iterator(m_run.path()))
            if (xdl::parsePartFileName(e.path().filename().string()))
                p.push_back(e.path().string());
        std::sort(p.begin(), p.end());
        return p;
    }
    TempDir m_run, m_cache, m_out;
};

} // namespace

TEST_F(SummaryCli, OutputsAreTheSameBytesWithAndWithoutSummaries) {
    const auto plain = outputs(m_run.str(), m_out);
    for (const auto& [args, out] : plain)
        EXPECT_EQ(out.substr(0, 2), "0\n") << args << "\n" << out.substr(0, 300);

    auto index = runXtrace("index " + m_run.str() + " --jobs 2");
    ASSERT_EQ(index.status, 0) << index.out;
    const auto p = parts();
    ASSERT_GT(p.size(), 4u);
    for (const auto& part : p) {
        EXPECT_TRUE(fs::exists(part + ".xts")) << part;
        EXPECT_NE(index.out.find("built     " + part + "  ("), std::string::npos) << index.out;
    }
    EXPECT_NE(index.out.find(std::to_string(p.size()) + " part(s) of 1 run(s): " +
                             std::to_string(p.size()) + " built, 0 extended, 0 loaded"),
              std::string::npos)
        << index.out;
    auto info = runXtrace("info " + m_run.str());
    EXPECT_NE(info.out.find("summaries: " + std::to_string(p.size()) + " of " +
                            std::to_string(p.size()) + " part(s)"),
              std::string::npos)
        << info.out;

    const auto summarized = outputs(m_run.str(), m_out);
    ASSERT_EQ(plain.size(), summarized.size());
    for (std::size_t i = 0; i < plain.size(); ++i)
        EXPECT_TRUE(plain[i].second == summarized[i].second) << plain[i].first;

    // The statistics really come from the summaries: a value changed in one shows in `stats`.
    const std::string xts = p[1] + ".xts";
    const std::string good = xt::test::readBytes(xts);
    auto s = summary::parseSummary(
        {reinterpret_cast<const std::uint8_t*>(good.data()), good.size()}, xts);
    ASSERT_TRUE(s.isOk());
    summary::PartSummary edited = *s;
    for (auto& c : edited.columns.built())
        if (c.state == summary::ColumnState::Data) c.stats.mean = 12345.5;
    ASSERT_TRUE(summary::saveSummary(edited, xts).isOk());
    auto stats = runXtrace("stats " + m_run.str());
    EXPECT_NE(stats.out.find("\"mean\":12345.5"), std::string::npos);
    EXPECT_NE(stats.out, plain[0].second.substr(2));
    ASSERT_TRUE(summary::saveSummary(*s, xts).isOk());
    EXPECT_EQ(runXtrace("stats " + m_run.str()).out, plain[0].second.substr(2));

    // A second index loads them all.
    index = runXtrace("index " + m_run.str());
    EXPECT_NE(index.out.find("0 built, 0 extended, " + std::to_string(p.size()) + " loaded"),
              std::string::npos)
        << index.out;
}

TEST_F(SummaryCli, CacheGrownPartsAndPublish) {
    const auto plain = outputs(m_run.str(), m_out);
    auto index = runXtrace("index --cache " + m_run.str());
    ASSERT_EQ(index.status, 0) << index.out;
    const std::string cacheDir = (m_cache.path() / "xtview" / "summaries").string();
    for (const auto& part : parts()) {
        EXPECT_FALSE(fs::exists(part + ".xts"));
        EXPECT_NE(index.out.find(part + "  ("), std::string::npos);
    }
    EXPECT_NE(index.out.find("-> " + cacheDir + "/"), std::string::npos) << index.out;
    auto info = runXtrace("info --json " + m_run.str());
    EXPECT_NE(info.out.find("\"summarized_parts\": " + std::to_string(parts().size())),
              std::string::npos)
        << info.out.substr(0, 400);
    const auto cached = outputs(m_run.str(), m_out);
    for (std::size_t i = 0; i < plain.size(); ++i)
        EXPECT_TRUE(plain[i].second == cached[i].second) << plain[i].first;

    // A part that grew is extended; until then it is computed from its bytes, still the same.
    const std::string last = parts().back();
    std::mt19937_64 rng(5);
    xt::test::writeBytes(
        last, xt::test::frameRecord(99, 100, 1700000000099, xt::test::allDtypesRecord(99, rng)),
        true);
    auto grownPlain = runXtrace("stats " + m_run.str() + " --key float");
    index = runXtrace("index --cache " + m_run.str());
    EXPECT_NE(index.out.find("extended  " + last), std::string::npos) << index.out;
    EXPECT_EQ(runXtrace("stats " + m_run.str() + " --key float").out, grownPlain.out);
    EXPECT_NE(grownPlain.out.find("\"gstep\":99"), std::string::npos);

    // --publish is for remote runs.
    auto publish = runWithStderr("index --publish " + m_run.str());
    EXPECT_EQ(publish.status, 1);
    EXPECT_NE(publish.out.find("not supported for local paths"), std::string::npos) << publish.out;
    EXPECT_EQ(runXtrace("index " + m_run.str() + "/nothing-here").status, 2);
}
