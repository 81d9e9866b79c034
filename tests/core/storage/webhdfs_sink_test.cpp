// The recorder's WebHDFS sink against the loopback WebHDFS server: the uploaded series is
// byte-identical to a local recording, survives a briefly unavailable namenode, and reports
// the records it had to drop when the spool overflowed.
#include "core/recorder/recorder.h"
#include "core/recorder/webhdfs/webhdfs_sink.h"
#include "core/xdl/run_discovery.h"
#include "core/xdl/trace_reader.h"
#include "tests/core/storage/webhdfs_test_server.h"
#include "tests/core/xdl/xdl_test_util.h"

#include <gtest/gtest.h>
#include <thread>

namespace xt::recorder {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::WebHdfsTestServer;

RecorderConfig baseConfig(const std::string& dir) {
    RecorderConfig c;
    c.outputDir = dir;
    c.maxFileMB = 0.004; // 4000-byte parts: several splits
    c.clock = [t = std::int64_t{1700000000000}]() mutable { return t += 10; };
    // The sink uploads parts and metas; summaries ({part}.xts) are written only by the local
    // file sink, so the local reference recording is made without them.
    c.writeSummaries = false;
    return c;
}

Status record(RecorderConfig config, int steps, std::chrono::milliseconds pause = {}) {
    auto rec = Recorder::create(std::move(config));
    if (!rec) return rec.status();
    std::vector<float> w(64);
    std::vector<std::int64_t> shape{64};
    for (int g = 0; g < steps; ++g) {
        for (std::size_t i = 0; i < w.size(); ++i)
            w[i] = static_cast<float>(g) + 0.5f * static_cast<float>(i);
        XT_RETURN_IF_ERROR((*rec)->trace<float>("w", w.data(), shape));
        XT_RETURN_IF_ERROR((*rec)->commitStep(g));
        std::this_thread::sleep_for(pause);
    }
    return (*rec)->close();
}

std::map<std::string, std::string> filesIn(const fs::path& dir) {
    std::map<std::string, std::string> out;
    if (!fs::exists(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file())
            out[e.path().filename().string()] = test::readFile(e.path().string());
    return out;
}

// RecorderConfig::sink replaces the local files: a custom sink sees every record, then close().
TEST(OutputSinkTest, RecorderWritesThroughACustomSink) {
    struct Seen {
        std::vector<std::string> keys;
        std::vector<std::int64_t> gsteps;
        std::uint64_t bytes = 0;
        int closes = 0;
    };
    struct MemorySink final : OutputSink {
        std::shared_ptr<Seen> seen;
        Status write(xdl::Bytes rec, std::int64_t gstep, std::int64_t, std::int64_t) override {
            seen->gsteps.push_back(gstep);
            seen->bytes += rec.size();
            return Status::ok();
        }
        Status sync() override { return Status::ok(); }
        Status close() override {
            ++seen->closes;
            return Status::ok();
        }
        std::uint64_t totalBytes() const override { return seen->bytes; }
        std::int64_t partIndex() const override { return 1; }
    };
    auto seen = std::make_shared<Seen>();
    TempDir dir;
    RecorderConfig c = baseConfig(dir.path().string());
    c.sink = [seen](const xdl::WriterOptions&,
                    const std::vector<std::string>& keys) -> Result<std::unique_ptr<OutputSink>> {
        seen->keys = keys;
        auto s = std::make_unique<MemorySink>();
        s->seen = seen;
        return std::unique_ptr<OutputSink>(std::move(s));
    };
    ASSERT_TRUE(record(std::move(c), 5));
    EXPECT_EQ(seen->keys, std::vector<std::string>{"w"});
    EXPECT_EQ(seen->gsteps, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(seen->closes, 1);
    EXPECT_TRUE(fs::is_empty(dir.path())) << "no local file was written";
}

struct SinkFixture : ::testing::Test {
    TempDir remote, spool, local;
    WebHdfsTestServer srv{remote.path().string()};
    std::shared_ptr<WebHdfsSinkMonitor> monitor = std::make_shared<WebHdfsSinkMonitor>();
    WebHdfsSinkOptions opts;
    void SetUp() override {
        ASSERT_GT(srv.port(), 0);
        opts.url = srv.url("/jobs/run1");
        opts.webhdfs.user = "trainer";
        opts.webhdfs.maxAttempts = 2;
        opts.webhdfs.initialBackoff = std::chrono::milliseconds(5);
        opts.webhdfs.maxBackoff = std::chrono::milliseconds(10);
        opts.batchBytes = 2000;
        opts.batchInterval = std::chrono::milliseconds(50);
    }
    RecorderConfig sinkConfig() {
        RecorderConfig c = baseConfig(spool.path().string());
        c.sink = webHdfsSinkFactory(opts, monitor);
        return c;
    }
};

TEST_F(SinkFixture, UploadsTheSameBytesAsALocalRecording) {
    ASSERT_TRUE(record(baseConfig(local.path().string()), 60));
    Status s = record(sinkConfig(), 60);
    ASSERT_TRUE(s) << s.toString();
    auto expected = filesIn(local.path());
    auto got = filesIn(remote.path() / "jobs/run1");
    ASSERT_GT(expected.size(), 4u) << "the test wants several part files";
    EXPECT_EQ(got, expected);
    EXPECT_TRUE(filesIn(spool.path()).empty()) << "uploaded parts leave the spool";
    auto st = monitor->stats();
    EXPECT_EQ(st.lostRecords, 0u);
    EXPECT_EQ(st.pendingBytes, 0u);
    std::uint64_t dataBytes = 0;
    for (const auto& [name, bytes] : expected)
        if (name.find(".meta") == std::string::npos) dataBytes += bytes.size();
    EXPECT_EQ(st.uploadedBytes, dataBytes);
    std::string stats = srv.control("stats=1");
    EXPECT_NE(stats.find("\"DN_APPEND\""), std::string::npos)
        << "batches after the first use APPEND";
}

TEST_F(SinkFixture, RidesOutABrieflyUnavailableNamenode) {
    ASSERT_TRUE(record(baseConfig(local.path().string()), 60));
    srv.control("fault=standby&op=ANY&count=8");
    opts.closeAttempts = 5; // at least 10 requests at close alone: more than the faults
    Status s = record(sinkConfig(), 60, std::chrono::milliseconds(3));
    ASSERT_TRUE(s) << s.toString() << srv.control("stats=1");
    EXPECT_EQ(filesIn(remote.path() / "jobs/run1"), filesIn(local.path()));
    auto st = monitor->stats();
    EXPECT_GT(st.failedUploads, 0u);
    EXPECT_EQ(st.lostRecords, 0u);
}

TEST_F(SinkFixture, AFailedAppendIsResyncedFromTheRemoteLength) {
    ASSERT_TRUE(record(baseConfig(local.path().string()), 60));
    // The data step fails after the namenode step: the outcome is unknown, so the sink asks
    // HDFS how many bytes arrived before it goes on.
    srv.control("fault=500&op=DN_APPEND&count=2");
    Status s = record(sinkConfig(), 60);
    ASSERT_TRUE(s) << s.toString();
    EXPECT_EQ(filesIn(remote.path() / "jobs/run1"), filesIn(local.path()));
}

TEST_F(SinkFixture, SpoolOverflowIsReportedAsLoss) {
    opts.spoolBytes = 3000;
    opts.closeAttempts = 1;
    srv.control("fault=standby&op=ANY&count=1000000");
    RecorderConfig c = sinkConfig();
    auto rec = Recorder::create(std::move(c));
    ASSERT_TRUE(rec);
    std::vector<float> w(64, 1.0f);
    std::vector<std::int64_t> shape{64};
    for (int g = 0; g < 40; ++g) {
        ASSERT_TRUE((*rec)->trace<float>("w", w.data(), shape));
        ASSERT_TRUE((*rec)->commitStep(g));
        if (g == 30) ASSERT_TRUE((*rec)->flush());
        if (g == 30) srv.control("clear=1"); // HDFS is back for the last records
    }
    Status s = (*rec)->close();
    auto st = monitor->stats();
    EXPECT_GT(st.lostRecords, 0u);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("lost"), std::string::npos) << s.message();
    // What did arrive is a readable series.
    Diagnostics diag;
    auto runs = xdl::discoverRuns({(remote.path() / "jobs/run1").string()}, diag);
    ASSERT_TRUE(runs) << runs.status().toString();
    ASSERT_EQ(runs->size(), 1u);
    auto run = xdl::RunReader::open((*runs)[0], diag);
    ASSERT_TRUE(run);
    std::size_t records = 0;
    for (const auto& p : run->ranks()[0].parts())
        records += p->index().records().size();
    EXPECT_EQ(records + st.lostRecords, 40u);
    EXPECT_EQ(diag.errorCount(), 0u);
}

} // namespace
} // namespace xt::recorder
