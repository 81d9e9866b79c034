// The recorder writes each part's summary beside it: valid for the part, equal byte for byte to
// a summary built from the file afterwards, saved at splits and close and every couple of
// seconds while a part grows (a reader extends that one over later records).
#include "core/recorder/recorder.h"
#include "core/summary/run_summary.h"
#include "summary_test_util.h"

#include <gtest/gtest.h>
#include <thread>

using namespace xt;
using namespace xt::summary;
using xt::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Traces one allDtypesRecord (columns of every dtype, NaN/Inf, a trace_once key).
// Traces one step. The recorder reads traced tensors at commitStep, so the returned columns
// must stay alive until then.
auto traceStep(recorder::Recorder& r, std::int64_t step, std::mt19937_64& rng) {
    auto cols = xt::test::allDtypesRecord(step, rng);
    const auto keys = xt::test::allDtypesKeys();
    for (std::size_t c = 0; c < cols.size(); ++c) {
        if (keys[c] == "once") continue;
        EXPECT_TRUE(r.trace(keys[c], {cols[c].dtype, cols[c].shape, cols[c].data.data()}).isOk());
    }
    return cols;
}

std::vector<std::string> partsIn(const std::string& dir) {
    std::vector<std::string> p;
    for (const auto& e : fs::directory_iterator(dir))
        if (xdl::parsePartFileName(e.path().filename().string())) p.push_back(e.path().string());
    std::sort(p.begin(), p.end());
    return p;
}

xdl::PartFile partAt(const std::string& path) {
    xdl::PartFile p;
    p.path = path;
    p.size = fs::file_size(path);
    return p;
}

} // namespace

TEST(RecorderSummaries, EveryPartHasAValidSummaryEqualToAFreshBuild) {
    TempDir dir, cache;
    recorder::RecorderConfig c;
    c.outputDir = dir.str();
    c.maxFileMB = 0.01; // several parts
    auto r = recorder::Recorder::create(c);
    ASSERT_TRUE(r.isOk());
    std::mt19937_64 rng(21);
    ASSERT_TRUE((*r)->traceOnceText("once", "hello").isOk());
    for (std::int64_t s = 0; s < 30; ++s) {
        const auto cols = traceStep(**r, s, rng);
        ASSERT_TRUE((*r)->commitStep(s).isOk());
    }
    ASSERT_TRUE((*r)->close().isOk());
    const auto parts = partsIn(dir.str());
    ASSERT_GE(parts.size(), 3u);
    StoreOptions beside;
    beside.cacheDir = cache.file("c");
    beside.writeBeside = true;
    for (const auto& part : parts) {
        ASSERT_TRUE(fs::exists(besidePath(part))) << part;
        Diagnostics d;
        auto loaded = loadOrBuildSummary(partAt(part), beside, d);
        ASSERT_TRUE(loaded.isOk());
        EXPECT_EQ(loaded->origin, SummaryOrigin::Loaded) << part;
        EXPECT_TRUE(d.empty()) << d.items().front().toString();
        // A build from the file's bytes gives the same summary, byte for byte.
        const std::string written = xt::test::readBytes(besidePath(part));
        fs::rename(besidePath(part), besidePath(part) + ".kept");
        StoreOptions fresh;
        fresh.cacheDir = cache.file("fresh");
        fresh.save = false;
        auto built = loadOrBuildSummary(partAt(part), fresh, d);
        ASSERT_TRUE(built.isOk());
        EXPECT_EQ(built->origin, SummaryOrigin::Built);
        EXPECT_TRUE(serializeSummary(*built->summary) == written) << part;
        fs::rename(besidePath(part) + ".kept", besidePath(part));
    }
    // The whole run opens from them.
    Diagnostics d;
    auto opened = openRun(xdl::discoverRuns({dir.str()}, d)->at(0), beside, d);
    ASSERT_TRUE(opened.isOk());
    EXPECT_TRUE(opened->summaries.covers(opened->reader));
    EXPECT_EQ(opened->reader.ranks()[0].recordCount(), 30u);
}

TEST(RecorderSummaries, AGrowingPartIsSavedPeriodicallyAndExtendedByReaders) {
    TempDir dir, cache;
    recorder::RecorderConfig c;
    c.outputDir = dir.str();
    auto r = recorder::Recorder::create(c);
    ASSERT_TRUE(r.isOk());
    std::mt19937_64 rng(4);
    auto record = [&](std::int64_t s) {
        const auto cols = traceStep(**r, s, rng);
        ASSERT_TRUE((*r)->commitStep(s).isOk());
        ASSERT_TRUE((*r)->flush().isOk());
    };
    record(0);
    const std::string part = dir.file("train.trace.0.1");
    EXPECT_FALSE(fs::exists(besidePath(part))); // the first save waits for the interval
    std::this_thread::sleep_for(recorder::kSummarySaveInterval + std::chrono::milliseconds(100));
    record(1); // saved after this one
    ASSERT_TRUE(fs::exists(besidePath(part)));
    record(2);
    record(3);
    StoreOptions o;
    o.cacheDir = cache.str();
    o.live = true;
    o.save = false;
    Diagnostics d;
    auto live = loadOrBuildSummary(partAt(part), o, d);
    ASSERT_TRUE(live.isOk());
    EXPECT_EQ(live->origin, SummaryOrigin::Extended);
    EXPECT_EQ(live->summary->recordCount(), 4u);
    ASSERT_TRUE((*r)->close().isOk());
    auto final = loadOrBuildSummary(partAt(part), o, d);
    ASSERT_TRUE(final.isOk());
    EXPECT_EQ(final->origin, SummaryOrigin::Loaded);
    EXPECT_EQ(serializeSummary(*live->summary), serializeSummary(*final->summary));
    EXPECT_TRUE(d.empty());
}

TEST(RecorderSummaries, CanBeTurnedOff) {
    TempDir dir;
    recorder::RecorderConfig c;
    c.outputDir = dir.str();
    c.writeSummaries = false;
    auto r = recorder::Recorder::create(c);
    ASSERT_TRUE(r.isOk());
    std::mt19937_64 rng(1);
    const auto cols = traceStep(**r, 0, rng);
    ASSERT_TRUE((*r)->commitStep(0).isOk());
    EXPECT_FALSE((*r)->setWriteSummaries(true).isOk()); // recording has started
    ASSERT_TRUE((*r)->close().isOk());
    EXPECT_TRUE(fs::exists(dir.file("train.trace.0.1")));
    EXPECT_FALSE(fs::exists(besidePath(dir.file("train.trace.0.1"))));
}
