#include "core/export/chrome_steps_writer.h"
#include "core/xdl/file_series_writer.h"
#include "xdl_test_util.h"

#include <gtest/gtest.h>
#include <map>
#include <simdjson.h>

using namespace xt;
using namespace xt::xdl;

TEST(ChromeSteps, StepsBecomeSlicesBetweenRecordTimestamps) {
    xt::test::TempDir dir;
    // Rank 0: timestamps 1000, 1250, 1600, then a restart at 900. Rank 1: one record.
    std::map<int, std::vector<std::int64_t>> stamps = {{0, {1000, 1250, 1600, 900}}, {1, {5000}}};
    for (auto& [rank, ts] : stamps) {
        auto w = FileSeriesWriter::create({dir.path().string(), "trace", 300, rank, true}, {"w"});
        ASSERT_TRUE(w.isOk());
        for (size_t i = 0; i < ts.size(); ++i) {
            auto r = xt::test::floatRecord(static_cast<std::int64_t>(i));
            r.set_timestamp(ts[i]);
            std::string framed = xt::test::frame(r.SerializeAsString());
            ASSERT_TRUE(
                (*w)->write({reinterpret_cast<const std::uint8_t*>(framed.data()), framed.size()},
                            static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 1, ts[i])
                    .isOk());
        }
    }
    Diagnostics diag;
    auto files = discoverRuns({dir.path().string()}, diag);
    ASSERT_TRUE(files.isOk());
    std::vector<RunReader> runs;
    runs.push_back(std::move(*RunReader::open(files->at(0), diag)));
    std::string out = dir.file("steps.json");
    auto report = writeChromeSteps(runs, out);
    ASSERT_TRUE(report.isOk()) << report.status().toString();
    EXPECT_EQ(report->steps, 2u);
    EXPECT_EQ(report->instants, 3u); // two first records and one restart

    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.load(out).get(doc), simdjson::SUCCESS);
    std::vector<std::pair<double, double>> slices;
    std::map<std::string, int> phases;
    std::vector<std::string> processNames;
    for (auto ev : doc["traceEvents"].get_array()) {
        std::string ph(ev["ph"].get_string().value());
        ++phases[ph];
        if (ph == "X") slices.emplace_back(ev["ts"].get_double(), ev["dur"].get_double());
        if (ph == "M" && ev["name"].get_string().value() == "process_name")
            processNames.emplace_back(ev["args"]["name"].get_string().value());
    }
    EXPECT_EQ(phases["X"], 2);
    EXPECT_EQ(phases["i"], 3);
    EXPECT_EQ(phases["C"], 5);
    ASSERT_EQ(slices.size(), 2u);
    EXPECT_DOUBLE_EQ(slices[0].first, 1000e3);
    EXPECT_DOUBLE_EQ(slices[0].second, 250e3);
    EXPECT_DOUBLE_EQ(slices[1].first, 1250e3);
    EXPECT_DOUBLE_EQ(slices[1].second, 350e3);
    ASSERT_EQ(processNames.size(), 2u);
    EXPECT_NE(processNames[1].find("rank 1"), std::string::npos);
}
