#include "core/export/chrome_steps_writer.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/xdl/file_series_writer.h"
#include "store_digest.h"
#include "xdl_test_util.h"

#include <gtest/gtest.h>
#include <map>
#include <simdjson.h>

using namespace xt;
using namespace xt::xdl;

namespace {

// One record per timestamp (ms) for each rank.
void writeRun(xt::test::TempDir& dir, const std::map<int, std::vector<std::int64_t>>& stamps) {
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
}

} // namespace

TEST(ChromeSteps, StepsBecomeSlicesBetweenRecordTimestamps) {
    xt::test::TempDir dir;
    // Rank 0: timestamps 1000, 1250, 1600, then a restart at 900. Rank 1: one record.
    writeRun(dir, {{0, {1000, 1250, 1600, 900}}, {1, {5000}}});
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

TEST(ChromeSteps, TheDirectStoreIsTheImportOfTheWrittenFile) {
    xt::test::TempDir dir;
    // Restarts, equal timestamps, and a timestamp whose microseconds are past the importer's
    // range (its step and counter are skipped the same way both ways).
    writeRun(dir, {{0, {1000, 1250, 1250, 900, 950}},
                   {3, {7000, 4'600'000'000'000'000 / 1000 + 1, 8000}}});
    Diagnostics diag;
    auto files = discoverRuns({dir.path().string()}, diag);
    ASSERT_TRUE(files.isOk());
    std::vector<RunReader> runs;
    runs.push_back(std::move(*RunReader::open(files->at(0), diag)));
    const std::string out = dir.file("steps.json");
    ASSERT_TRUE(writeChromeSteps(runs, out).isOk());
    auto viaJson = timeline::importChromeTrace(out);
    ASSERT_TRUE(viaJson.isOk()) << viaJson.status().toString();
    auto direct = xdlStepsTrace(runs[0]);
    ASSERT_TRUE(direct.isOk()) << direct.status().toString();
    const auto a = timeline::test::digest(*viaJson, false);
    const auto b = timeline::test::digest(*direct, false);
    EXPECT_EQ(a.storeHash, b.storeHash);
    EXPECT_EQ(a.reportHash, b.reportHash);
    EXPECT_EQ(a.slices, b.slices);
    EXPECT_EQ(a.instants, b.instants);
    EXPECT_EQ(a.counters, b.counters);
    EXPECT_EQ(direct->report().phases, viaJson->report().phases);
    EXPECT_EQ(direct->report().events, viaJson->report().events);
    EXPECT_GE(direct->report().diagnostics.countsByCode().count("ts-out-of-range"), 1u);
    EXPECT_EQ(direct->report().displayTimeUnit, "ms");
}
