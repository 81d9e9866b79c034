// Remote runs opened from their summaries, against the loopback WebHDFS test server, which
// counts the bytes it serves per file and per range: published summaries open a run and give a
// key's statistics and a tensor for under 1% of its bytes; without summaries no byte is
// transferred twice; a damaged remote summary is reported and rebuilt; offline, a partial sparse
// mirror reads what it holds and reports the rest; `xtrace index --publish` and the URLs that
// every output shows.
#include "core/analysis/cpu_backend.h"
#include "core/analysis/key_stats.h"
#include "core/storage/remote_runs.h"
#include "core/summary/run_summary.h"
#include "core/xdl/file_series_writer.h"
#include "tests/core/storage/webhdfs_test_server.h"
#include "tests/core/xdl/xdl_test_util.h"

#include <gtest/gtest.h>
#include <map>
#include <simdjson.h>
#include <sys/wait.h>

namespace xt::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::WebHdfsTestServer;

constexpr std::int64_t kElements = 65536; // "w": 256 KiB per record

float valueOf(int rank, std::int64_t step, std::int64_t i) {
    return static_cast<float>((i * 7 + step * 13 + rank * 5) % 1000) * 0.001f - 0.5f +
           static_cast<float>(step);
}

// Ranks of one part series each: "w" (kElements float32), "b" (16 float32) and "loss" (scalar)
// per record, `perPart` records per part.
std::uint64_t writeRun(const std::string& dir, int ranks, int parts, int perPart) {
    std::uint64_t total = 0;
    std::vector<float> w(kElements), b(16);
    for (int r = 0; r < ranks; ++r) {
        xdl::WriterOptions o;
        o.outputDir = dir;
        o.rank = r;
        o.maxFileMB = 1e-6; // replaced below once the record size is known
        xdl::RecordEncoder enc;
        std::unique_ptr<xdl::FileSeriesWriter> writer;
        for (std::int64_t s = 0; s < std::int64_t(parts) * perPart; ++s) {
            for (std::int64_t i = 0; i < kElements; ++i)
                w[std::size_t(i)] = valueOf(r, s, i);
            for (std::size_t i = 0; i < b.size(); ++i)
                b[i] = float(s) + float(i);
            const float loss = 1.0f / float(s + 1);
            enc.begin(s, s + 1);
            auto bytes = [](const auto& v) {
                return xdl::Bytes(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 4);
            };
            enc.addColumn(xdl::Dtype::Float, std::vector<std::int64_t>{256, 256}, bytes(w));
            enc.addColumn(xdl::Dtype::Float, std::vector<std::int64_t>{16}, bytes(b));
            enc.addColumn(xdl::Dtype::Float, {},
                          xdl::Bytes(reinterpret_cast<const std::uint8_t*>(&loss), 4));
            EXPECT_TRUE(enc.finish(1700000000000 + s * 100));
            if (!writer) {
                o.maxFileMB = double(enc.framed().size()) * perPart / 1e6;
                writer = std::move(*xdl::FileSeriesWriter::create(o, {"w", "b", "loss"}));
            }
            EXPECT_TRUE(writer->write(enc.framed(), s, s + 1, 1700000000000 + s * 100));
        }
        EXPECT_TRUE(writer->close());
        total += writer->totalBytes();
    }
    return total;
}

struct Served {
    std::map<std::string, std::uint64_t> bytes; // per HDFS path
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> ranges;
    std::uint64_t total() const {
        std::uint64_t n = 0;
        for (const auto& [p, b] : bytes)
            n += b;
        return n;
    }
    std::uint64_t dataBytes() const { // part files only (no metas, no summaries)
        std::uint64_t n = 0;
        for (const auto& [p, b] : bytes)
            if (xdl::parsePartFileName(fs::path(p).filename().string())) n += b;
        return n;
    }
};

Served served(WebHdfsTestServer& srv) {
    Served out;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(srv.control("stats=1")).get(doc)) return out;
    for (auto [path, n] : doc["served"].get_object())
        out.bytes[std::string(path)] = std::uint64_t(n.get_int64());
    for (auto [path, list] : doc["ranges"].get_object())
        for (auto r : list.get_array())
            out.ranges[std::string(path)].emplace_back(std::uint64_t(r.at(0).get_int64()),
                                                       std::uint64_t(r.at(1).get_int64()));
    return out;
}

struct XtraceResult {
    int status = -1;
    std::string out;
};

// xtrace with the given cache folder; stdout and stderr together.
XtraceResult xtrace(const std::string& cache, const std::string& args) {
    XtraceResult r;
    const std::string cmd = "XDG_CACHE_HOME='" + cache + "' '" XT_XTRACE "' " + args + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;)
        r.out.append(buf, n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

struct RemoteFixture : ::testing::Test {
    TempDir remote, cacheA, cacheB;
    WebHdfsTestServer srv{remote.path().string()};
    std::uint64_t runBytes = 0;

    void SetUp() override { ASSERT_GT(srv.port(), 0) << "test server did not start"; }
    void makeRun(int ranks, int parts, int perPart) {
        runBytes = writeRun(remote.file("exp/run"), ranks, parts, perPart);
    }
    MirrorOptions options(const TempDir& cache) const {
        MirrorOptions o;
        o.cacheDir = cache.file("hdfs");
        o.webhdfs.connectTimeout = std::chrono::milliseconds(1000);
        o.webhdfs.initialBackoff = std::chrono::milliseconds(10);
        o.webhdfs.maxBackoff = std::chrono::milliseconds(40);
        o.webhdfs.maxAttempts = 2;
        return o;
    }
    summary::StoreOptions store(const TempDir& cache) const {
        summary::StoreOptions s;
        s.cacheDir = cache.file("summaries");
        return s;
    }
    // The remote run opened as xtrace opens it: sparse mirror, URLs and fetchers, summaries.
    struct Opened {
        std::unique_ptr<RemoteRuns> remote;
        summary::OpenedRun run;
    };
    Opened open(const TempDir& cache, Diagnostics& diag) {
        Opened o;
        auto r = RemoteRuns::open({srv.url("/exp")}, options(cache));
        EXPECT_TRUE(r) << r.status().toString();
        if (!r) return o;
        o.remote = std::make_unique<RemoteRuns>(std::move(*r));
        auto found = xdl::discoverRuns(o.remote->localPaths(), diag);
        EXPECT_TRUE(found && found->size() == 1);
        if (!found || found->empty()) return o;
        o.remote->attach(found->front(), diag);
        auto run = summary::openRun(found->front(), store(cache), diag);
        EXPECT_TRUE(run) << run.status().toString();
        if (run) o.run = std::move(*run);
        return o;
    }
};

TEST_F(RemoteFixture, PublishedSummariesOpenARunAndReadOneTensorForUnderOnePercent) {
    makeRun(2, 1, 192); // 2 parts of 48 MB
    auto index = xtrace(cacheA.path().string(), "index " + srv.url("/exp") + " --publish");
    ASSERT_EQ(index.status, 0) << index.out;
    EXPECT_NE(index.out.find("2 summaries published"), std::string::npos) << index.out;
    ASSERT_TRUE(fs::exists(remote.file("exp/run/train.trace.0.1.xts")));
    EXPECT_EQ(served(srv).dataBytes(), runBytes) << "indexing streams each part once";

    srv.control("clear=1");
    Diagnostics diag;
    Opened o = open(cacheB, diag);
    ASSERT_TRUE(o.remote);
    EXPECT_TRUE(o.run.summaries.covers(o.run.reader)) << diag.items().size();
    EXPECT_EQ(o.run.reader.files().label(), srv.url("/exp/run/train.trace"));
    analysis::CpuBackend cpu;
    analysis::KeyStatsOptions ko;
    ko.keyFilter = [](std::string_view k) { return k == "w"; };
    ko.summaries = &o.run.summaries;
    auto series = analysis::computeKeyStats(o.run.reader, cpu, ko, diag);
    ASSERT_TRUE(series) << series.status().toString();
    ASSERT_EQ(series->size(), 2u);
    ASSERT_EQ((*series)[1].records.size(), 192u);
    const auto& st = (*series)[1].records[100].stats;
    float lo = valueOf(1, 100, 0), hi = lo;
    for (std::int64_t i = 1; i < kElements; ++i)
        lo = std::min(lo, valueOf(1, 100, i)), hi = std::max(hi, valueOf(1, 100, i));
    EXPECT_EQ(st.count, std::uint64_t(kElements));
    EXPECT_EQ(st.min, double(lo));
    EXPECT_EQ(st.max, double(hi));

    auto t = o.run.reader.ranks()[1].tensor(100, "w");
    ASSERT_TRUE(t) << t.status().toString();
    const float* v = reinterpret_cast<const float*>(t->bytes().data());
    for (std::int64_t i : {std::int64_t(0), std::int64_t(777), kElements - 1})
        EXPECT_EQ(v[i], valueOf(1, 100, i));

    const Served s = served(srv);
    EXPECT_LE(s.total(), runBytes / 100)
        << s.total() << " of " << runBytes << " bytes (data " << s.dataBytes() << ")";
    EXPECT_GT(s.dataBytes(), std::uint64_t(kElements) * 4) << "the tensor came by range";
}

TEST_F(RemoteFixture, WithoutSummariesNoByteIsTransferredTwice) {
    makeRun(2, 2, 6);
    {
        Diagnostics diag;
        Opened o = open(cacheA, diag);
        ASSERT_TRUE(o.remote);
        EXPECT_EQ(o.run.summaries.size(), 0u);
        // Built from the bytes the open streamed, cached locally.
        ASSERT_TRUE(summary::summarizeRun(o.run.reader, o.run.summaries, store(cacheA), diag));
        EXPECT_TRUE(o.run.summaries.covers(o.run.reader));
        std::size_t tensors = 0;
        for (const auto& rank : o.run.reader.ranks())
            rank.forEachTensor("w", diag, [&](std::size_t, const xdl::TensorView& t) {
                tensors += t.size() == std::size_t(kElements);
                return true;
            });
        EXPECT_EQ(tensors, 24u);
        EXPECT_EQ(diag.errorCount(), 0u);
    }
    Diagnostics again;
    Opened o = open(cacheA, again);
    ASSERT_TRUE(o.remote);
    EXPECT_TRUE(o.run.summaries.covers(o.run.reader)) << "from the local cache";
    auto t = o.run.reader.ranks()[0].tensor(11, "w");
    ASSERT_TRUE(t);
    EXPECT_EQ(reinterpret_cast<const float*>(t->bytes().data())[5], valueOf(0, 11, 5));

    const Served s = served(srv);
    EXPECT_EQ(s.dataBytes(), runBytes);
    for (const auto& [path, list] : s.ranges) {
        auto sorted = list;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 1; i < sorted.size(); ++i)
            EXPECT_LE(sorted[i - 1].first + sorted[i - 1].second, sorted[i].first)
                << path << ": bytes fetched twice";
    }
}

TEST_F(RemoteFixture, ADamagedRemoteSummaryIsReportedAndRebuilt) {
    makeRun(1, 2, 4);
    ASSERT_EQ(xtrace(cacheA.path().string(), "index " + srv.url("/exp") + " --publish").status, 0);
    const std::string xts = remote.file("exp/run/train.trace.0.2.xts");
    std::string bytes = test::readFile(xts);
    bytes[bytes.size() / 2] ^= 0x40;
    test::writeFile(xts, bytes);

    auto info = xtrace(cacheB.path().string(), "info " + srv.url("/exp"));
    EXPECT_EQ(info.status, 0) << info.out;
    EXPECT_NE(info.out.find(srv.url("/exp/run/train.trace.0.2.xts") + ":"), std::string::npos)
        << info.out;
    EXPECT_NE(info.out.find("[summary-corrupt]"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("summaries: 1 of 2 part(s)"), std::string::npos) << info.out;
    EXPECT_EQ(info.out.find("xtview/hdfs"), std::string::npos) << "URLs, not mirror paths";

    Diagnostics diag;
    Opened o = open(cacheB, diag);
    ASSERT_TRUE(o.remote);
    EXPECT_EQ(o.run.summaries.size(), 1u);
    ASSERT_TRUE(summary::summarizeRun(o.run.reader, o.run.summaries, store(cacheB), diag));
    EXPECT_TRUE(o.run.summaries.covers(o.run.reader)) << "rebuilt";
    EXPECT_EQ(diag.countsByCode().count("summary-corrupt"), 1u);

    auto republish = xtrace(cacheB.path().string(), "index " + srv.url("/exp") + " --publish");
    EXPECT_EQ(republish.status, 0) << republish.out;
    EXPECT_NE(republish.out.find("1 summary published beside the run on HDFS, 1 there already"),
              std::string::npos)
        << republish.out;
    EXPECT_NE(test::readFile(xts), bytes) << "the damaged one was replaced";
}

TEST_F(RemoteFixture, OfflineAPartialMirrorReadsWhatItHoldsAndLocatesTheRest) {
    makeRun(1, 1, 8);
    ASSERT_EQ(xtrace(cacheA.path().string(), "index " + srv.url("/exp") + " --publish").status, 0);
    {
        Diagnostics diag;
        Opened o = open(cacheB, diag);
        ASSERT_TRUE(o.remote);
        ASSERT_TRUE(o.run.reader.ranks()[0].tensor(3, "w"));
    }
    const std::string url = srv.url("/exp");
    srv.stop();
    Diagnostics diag;
    auto r = RemoteRuns::open({url}, options(cacheB));
    ASSERT_TRUE(r) << r.status().toString();
    ASSERT_TRUE(r->statuses()[0].offline);
    auto found = xdl::discoverRuns(r->localPaths(), diag);
    ASSERT_TRUE(found);
    r->attach(found->front(), diag);
    auto run = summary::openRun(found->front(), store(cacheB), diag);
    ASSERT_TRUE(run) << run.status().toString();
    EXPECT_TRUE(run->summaries.covers(run->reader)) << "summaries and their prints are local";
    const auto& rank = run->reader.ranks()[0];
    auto t = rank.tensor(3, "w");
    ASSERT_TRUE(t) << t.status().toString();
    EXPECT_EQ(reinterpret_cast<const float*>(t->bytes().data())[9], valueOf(0, 3, 9));
    auto missing = rank.tensor(6, "w");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.status().code(), ErrorCode::IoError);
    const std::string part = srv.url("/exp/run/train.trace.0.1");
    EXPECT_NE(
        missing.status().message().find(part + ":" + std::to_string(rank.entry(6).offset - 4)),
        std::string::npos)
        << missing.status().message();
    EXPECT_NE(missing.status().message().find("cannot be reached"), std::string::npos)
        << missing.status().message();
    Diagnostics each;
    std::size_t read = 0;
    rank.forEachTensor("w", each, [&](std::size_t i, const xdl::TensorView& v) {
        EXPECT_EQ(reinterpret_cast<const float*>(v.bytes().data())[1], valueOf(0, i, 1))
            << "record " << i << ": what is read is the data, never zeros";
        return ++read, true;
    });
    EXPECT_GE(read, 1u);
    EXPECT_EQ(each.countsByCode().at("unavailable-record"), 8 - read);
}

TEST_F(RemoteFixture, PublishingRefusedIsAWarningAndDumpShowsTheUrl) {
    makeRun(1, 1, 3);
    srv.control("fault=denied&op=CREATE&count=100");
    auto index = xtrace(cacheA.path().string(), "index " + srv.url("/exp") + " --publish");
    EXPECT_EQ(index.status, 0) << index.out;
    EXPECT_NE(index.out.find("cannot publish " + srv.url("/exp/run/train.trace.0.1.xts")),
              std::string::npos)
        << index.out;
    EXPECT_NE(index.out.find("Permission denied"), std::string::npos) << index.out;
    EXPECT_NE(index.out.find("0 summaries published beside the run on HDFS, 0 there already, 1 "
                             "refused"),
              std::string::npos)
        << index.out;
    EXPECT_FALSE(fs::exists(remote.file("exp/run/train.trace.0.1.xts")));
    EXPECT_TRUE(fs::exists(cacheA.file("xtview/summaries"))) << "kept in the local cache";

    auto dump = xtrace(cacheA.path().string(), "dump " + srv.url("/exp") + " --key b --step 2");
    EXPECT_EQ(dump.status, 0) << dump.out;
    EXPECT_NE(dump.out.find("# run " + srv.url("/exp/run/train.trace") + " rank 0 key b gstep 2"),
              std::string::npos)
        << dump.out;
    EXPECT_EQ(dump.out.find("xtview/hdfs"), std::string::npos) << dump.out;
}

} // namespace
} // namespace xt::storage
