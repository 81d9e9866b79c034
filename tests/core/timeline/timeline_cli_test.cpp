// Runs the built `xtrace timeline` and checks the JSON contract, the exit codes and stderr.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "shared_corpus.h"
#include "xtrace_run.h"

namespace {

using xt::test::RunResult;

RunResult run(const std::string& args) {
    return xt::test::runXtrace(args);
}

std::string corpus(const std::string& rel) {
    return xt::test::chromeCorpus(rel);
}

} // namespace

TEST(TimelineCli, SummaryJsonFollowsTheContract) {
    const std::string path = "/tmp/xt_timeline_cli_test.json";
    {
        std::ofstream f(path);
        f << R"({"traceEvents":[
          {"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},
          {"ph":"X","name":"step","pid":1,"tid":1,"ts":0,"dur":100},
          {"ph":"X","name":"op","pid":1,"tid":1,"ts":10,"dur":20},
          {"ph":"B","name":"op","pid":1,"tid":2,"ts":50},
          {"ph":"E","pid":1,"tid":2,"ts":60},
          {"ph":"E","pid":1,"tid":2,"ts":70},
          {"ph":"C","name":"mem","pid":1,"ts":5,"args":{"v":1}},
          {"ph":"s","id":1,"name":"f","pid":1,"tid":1,"ts":15},
          {"ph":"f","id":1,"name":"f","bp":"e","pid":1,"tid":2,"ts":55},
        ]})";
    }
    auto r = run("timeline " + path + " --summary --json --top 5");
    ASSERT_EQ(r.status, 0);
    const std::string expected =
        R"({"events":9,"phases":{"B":1,"C":1,"E":2,"M":1,"X":2,"f":1,"s":1},"processes":1,)"
        R"("threads":2,"flows":1,"counters":1,"span_us":100,"top":[)"
        R"({"name":"step","count":1,"total_us":100,"self_us":80,"avg_us":100,"min_us":100,"max_us":100},)"
        R"({"name":"op","count":2,"total_us":30,"self_us":30,"avg_us":15,"min_us":10,"max_us":20}],)"
        R"("warnings":{"trailing-comma":1,"unmatched-end":1},)";
    EXPECT_EQ(r.out.substr(0, expected.size()), expected) << r.out;
    EXPECT_NE(r.out.find(R"("memory":[{"counter":"mem v")"), std::string::npos) << r.out;
    std::remove(path.c_str());
}

TEST(TimelineCli, TopLimitsRowsAndTextMode) {
    XT_REQUIRE_SHARED_CORPUS();
    auto r = run("timeline " + corpus("catapult/x_event_trace.json") + " --json --top 2");
    ASSERT_EQ(r.status, 0);
    EXPECT_NE(r.out.find(R"("events":4027,)"), std::string::npos);
    std::size_t rows = 0;
    for (std::size_t p = r.out.find("\"total_us\""); p != std::string::npos;
         p = r.out.find("\"total_us\"", p + 1))
        ++rows;
    EXPECT_EQ(rows, 2u);
    auto t = run("timeline " + corpus("catapult/simple_trace_zip.zip") + " --summary");
    ASSERT_EQ(t.status, 0);
    EXPECT_NE(t.out.find("phases      B:8 C:5 E:8 I:4 M:3 P:3 X:4"), std::string::npos) << t.out;
}

TEST(TimelineCli, ExitCodes) {
    EXPECT_EQ(run("timeline /nonexistent/file.json --json").status, 2);
    EXPECT_EQ(run("timeline").status, 1);
    EXPECT_EQ(run("timeline x.json --top nope").status, 1);
    const std::string path = "/tmp/xt_timeline_cli_garbage.json";
    {
        std::ofstream f(path);
        f << "this is not json";
    }
    EXPECT_EQ(run("timeline " + path).status, 2);
    std::remove(path.c_str());
}
