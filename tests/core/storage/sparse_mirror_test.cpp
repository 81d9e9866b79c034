// Sparse mirror copies against the loopback WebHDFS test server, which counts the bytes it
// serves per file: byte ranges fetched once (across fetchers, restarts and threads), growth
// without refetching, replacement, offline reads of a partial copy, and the range map itself.
#include "core/storage/hdfs_mirror.h"
#include "core/storage/mirror_poller.h"
#include "core/storage/range_map.h"
#include "core/xdl/run_follower.h"
#include "tests/core/storage/webhdfs_test_server.h"
#include "tests/core/xdl/xdl_test_util.h"

#include <condition_variable>
#include <gtest/gtest.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>

namespace xt::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::WebHdfsTestServer;

using xt::test::pattern;

std::string slice(const std::string& path, std::uint64_t offset, std::uint64_t n) {
    return test::readFile(path).substr(offset, n);
}

TEST(ByteRangesTest, MergesAndReportsGaps) {
    ByteRanges r;
    r.add(10, 20);
    r.add(30, 40);
    r.add(20, 25); // touches: merges
    ASSERT_EQ(r.ranges().size(), 2u);
    EXPECT_EQ(r.ranges()[0], ByteRanges::Range(10, 25));
    EXPECT_TRUE(r.covers(12, 25));
    EXPECT_FALSE(r.covers(12, 26));
    EXPECT_TRUE(r.covers(5, 5));
    auto gaps = r.missing(0, 50);
    ASSERT_EQ(gaps.size(), 3u);
    EXPECT_EQ(gaps[0], ByteRanges::Range(0, 10));
    EXPECT_EQ(gaps[1], ByteRanges::Range(25, 30));
    EXPECT_EQ(gaps[2], ByteRanges::Range(40, 50));
    EXPECT_TRUE(r.missing(31, 39).empty());
    r.add(0, 100);
    EXPECT_EQ(r.ranges().size(), 1u);
    EXPECT_EQ(r.bytes(), 100u);
}

TEST(RangeMapTest, RoundTripsAndADamagedMapReadsEmpty) {
    TempDir dir;
    std::string path = dir.file("m/map");
    {
        auto m = LockedRangeMap::open(path);
        ASSERT_TRUE(m) << m.status().toString();
        EXPECT_EQ(m->read().inode, 0u);
        RangeMap map{42, {}};
        map.ranges.add(0, 65536);
        map.ranges.add(131072, 140000);
        ASSERT_TRUE(m->write(map));
        EXPECT_EQ(m->read().ranges, map.ranges);
        EXPECT_EQ(m->read().inode, 42u);
    }
    std::string bytes = test::readFile(path);
    bytes[20] ^= 1;
    test::writeFile(path, bytes);
    auto m = LockedRangeMap::open(path);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->read().inode, 0u);
    EXPECT_EQ(m->read().ranges.bytes(), 0u);
}

struct SparseFixture : ::testing::Test {
    TempDir remote, cache;
    WebHdfsTestServer srv{remote.path().string()};
    MirrorOptions opts;
    const std::string data = pattern(300000);
    void SetUp() override {
        ASSERT_GT(srv.port(), 0) << "test server did not start";
        opts.cacheDir = cache.path().string();
        opts.sparse = true;
        opts.webhdfs.connectTimeout = std::chrono::milliseconds(1000);
        opts.webhdfs.initialBackoff = std::chrono::milliseconds(10);
        opts.webhdfs.maxBackoff = std::chrono::milliseconds(40);
        opts.webhdfs.maxAttempts = 2;
        fs::create_directories(remote.path() / "runs/r1");
        test::writeFile(remote.file("runs/r1/train.trace.0.1"), data);
        test::writeFile(remote.file("runs/r1/train.trace.0.1.meta"), "meta");
        test::writeFile(remote.file("runs/r1/train.trace.0.1.xts"), "summary");
    }
    std::string local(const std::string& rel) const { return cache.file("127.0.0.1/" + rel); }
    // Bytes the server has sent of `path` (an HDFS path) since the last clear.
    std::uint64_t served(const std::string& path) {
        std::string s = srv.control("stats=1");
        auto obj = s.find("\"served\": {");
        if (obj == std::string::npos) return 0;
        auto end = s.find('}', obj);
        auto at = s.find("\"" + path + "\": ", obj);
        if (at == std::string::npos || at > end) return 0;
        return std::stoull(s.substr(at + path.size() + 4));
    }
    xdl::PartFile attached(HdfsMirror& m, const std::string& rel) {
        xdl::PartFile p;
        p.path = local(rel);
        Status st = m.attach(p);
        EXPECT_TRUE(st) << st.toString();
        return p;
    }
};

TEST_F(SparseFixture, DataFilesAreSparseCompanionsWhole) {
    HdfsMirror m(opts);
    auto st = m.mirror(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->filesNew, 3u);
    EXPECT_EQ(st->bytesFetched, 11u) << "the meta and the summary only";
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), 0u);
    EXPECT_EQ(fs::file_size(local("runs/r1/train.trace.0.1")), data.size());
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1.xts")), "summary");
    // The local copy carries the remote modification time.
    struct stat a {
    }, b{};
    ASSERT_EQ(::stat(remote.file("runs/r1/train.trace.0.1").c_str(), &a), 0);
    ASSERT_EQ(::stat(local("runs/r1/train.trace.0.1").c_str(), &b), 0);
    EXPECT_EQ(b.st_mtim.tv_sec * 1000 + b.st_mtim.tv_nsec / 1000000,
              a.st_mtim.tv_sec * 1000 + a.st_mtim.tv_nsec / 1000000);

    xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
    EXPECT_EQ(p.source, srv.url("/runs/r1/train.trace.0.1"));
    ASSERT_TRUE(p.fetcher);
    ASSERT_TRUE(p.fetcher->ensure(70000, 10));
    // One whole 64 KiB block around the range.
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), 65536u);
    EXPECT_EQ(slice(local("runs/r1/train.trace.0.1"), 65536, 65536), data.substr(65536, 65536));
    ASSERT_TRUE(p.fetcher->ensure(65536, 65536));
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), 65536u) << "fetched once";
    ASSERT_EQ(::stat(local("runs/r1/train.trace.0.1").c_str(), &b), 0);
    EXPECT_EQ(b.st_mtim.tv_sec, a.st_mtim.tv_sec) << "writing keeps the remote mtime";
    EXPECT_EQ(m.fetchContext()->bytesFetched(), 65536u);
    auto bytes = m.cachedBytes();
    ASSERT_TRUE(bytes);
    EXPECT_LT(*bytes, data.size()) << "a sparse copy takes what was fetched";
}

TEST_F(SparseFixture, NothingIsFetchedTwiceAcrossRestartsAndThreads) {
    {
        HdfsMirror m(opts);
        ASSERT_TRUE(m.mirror(srv.url("/runs")));
        xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
        ASSERT_TRUE(p.fetcher->ensure(0, 100));
    }
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), 65536u);
    // Another mirror object (a restart, or another process: its own descriptors and locks).
    HdfsMirror again(opts);
    auto st = again.mirror(srv.url("/runs"));
    ASSERT_TRUE(st);
    EXPECT_EQ(st->bytesFetched, 0u);
    xdl::PartFile a = attached(again, "runs/r1/train.trace.0.1");
    xdl::PartFile b = attached(again, "runs/r1/train.trace.0.1");
    std::thread t1([&] { EXPECT_TRUE(a.fetcher->ensure(0, data.size())); });
    std::thread t2([&] { EXPECT_TRUE(b.fetcher->ensure(0, data.size())); });
    t1.join();
    t2.join();
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), data.size());
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), data);
}

TEST_F(SparseFixture, AGrownFileFetchesOnlyTheNewBytes) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
    ASSERT_TRUE(p.fetcher->ensure(0, data.size()));
    std::ofstream(remote.file("runs/r1/train.trace.0.1"), std::ios::binary | std::ios::app)
        << pattern(5000, 3);
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->filesAppended, 1u);
    EXPECT_EQ(st->bytesFetched, 0u);
    ASSERT_EQ(st->changedFiles.size(), 1u);
    EXPECT_EQ(fs::file_size(local("runs/r1/train.trace.0.1")), data.size() + 5000);
    ASSERT_TRUE(p.fetcher->ensure(0, data.size() + 5000));
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), data.size() + 5000);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), data + pattern(5000, 3));
}

TEST_F(SparseFixture, AReplacedFileIsNeverMixedWithItsOldCopy) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    xdl::PartFile old = attached(m, "runs/r1/train.trace.0.1");
    ASSERT_TRUE(old.fetcher->ensure(0, 1000));
    const std::string other = pattern(200000, 9);
    test::writeFile(remote.file("runs/r1/new"), other);
    fs::rename(remote.file("runs/r1/new"), remote.file("runs/r1/train.trace.0.1"));
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->filesReplaced, 1u);
    Status stale = old.fetcher->ensure(100000, 1000);
    EXPECT_EQ(stale.code(), ErrorCode::IoError);
    EXPECT_NE(stale.message().find("replaced"), std::string::npos) << stale.message();
    xdl::PartFile now = attached(m, "runs/r1/train.trace.0.1");
    ASSERT_TRUE(now.fetcher->ensure(0, other.size()));
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), other);
}

TEST_F(SparseFixture, ACopyRemovedFromTheMirrorIsAnErrorNotAHole) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
    ASSERT_TRUE(p.fetcher->ensure(0, 1000));
    fs::remove(remote.file("runs/r1/train.trace.0.1"));
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st);
    EXPECT_EQ(st->filesRemoved, 1u);
    EXPECT_FALSE(fs::exists(rangeMapPath(opts.cacheDir, "127.0.0.1/runs/r1/train.trace.0.1")));
    EXPECT_TRUE(p.fetcher->ensure(0, 1000)) << "what was fetched stays readable";
    Status gone = p.fetcher->ensure(100000, 10);
    EXPECT_EQ(gone.code(), ErrorCode::IoError);
    EXPECT_NE(gone.message().find("removed"), std::string::npos) << gone.message();
}

TEST_F(SparseFixture, OfflineWhatWasFetchedStaysReadableAndTheRestIsALocatedError) {
    {
        HdfsMirror m(opts);
        ASSERT_TRUE(m.mirror(srv.url("/runs")));
        xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
        ASSERT_TRUE(p.fetcher->ensure(0, 1000));
    }
    const std::string url = srv.url("/runs");
    srv.stop();
    HdfsMirror m(opts);
    auto st = m.mirror(url);
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_TRUE(st->offline);
    xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
    EXPECT_TRUE(p.fetcher->ensure(0, 65536));
    EXPECT_EQ(slice(local("runs/r1/train.trace.0.1"), 0, 65536), data.substr(0, 65536));
    auto start = std::chrono::steady_clock::now();
    Status missing = p.fetcher->ensure(200000, 10);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500))
        << "offline: no network attempt";
    EXPECT_EQ(missing.code(), ErrorCode::IoError);
    EXPECT_NE(missing.message().find(srv.url("/runs/r1/train.trace.0.1")), std::string::npos)
        << missing.message();
    EXPECT_NE(missing.message().find("196608"), std::string::npos) << missing.message();
}

TEST_F(SparseFixture, AServerErrorFailsOneFetchAndTheNextOneTriesAgain) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
    // Every attempt of this fetch (opts.webhdfs.maxAttempts) gets a 500 from the datanode.
    srv.control("fault=500&op=DN_OPEN&count=2");
    Status failed = p.fetcher->ensure(0, 1000);
    EXPECT_EQ(failed.code(), ErrorCode::IoError) << failed.toString();
    // The server answered: the mirror is not offline, so the next read fetches at once.
    EXPECT_FALSE(m.fetchContext()->offline());
    srv.control("clear=1"); // whatever fault was not used up by retries
    Status again = p.fetcher->ensure(0, 1000);
    EXPECT_TRUE(again) << again.toString();
    EXPECT_EQ(slice(local("runs/r1/train.trace.0.1"), 0, 1000), data.substr(0, 1000));

    // A server that cannot be reached at all does put it offline (no attempt for a while).
    srv.stop();
    Status unreachable = p.fetcher->ensure(200000, 10);
    EXPECT_EQ(unreachable.code(), ErrorCode::IoError);
    EXPECT_TRUE(m.fetchContext()->offline());
}

TEST_F(SparseFixture, AWholeCopyBecomesSparseWithoutBeingFetchedAgain) {
    MirrorOptions whole = opts;
    whole.sparse = false;
    ASSERT_TRUE(HdfsMirror(whole).mirror(srv.url("/runs")));
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), data.size());
    std::ofstream(remote.file("runs/r1/train.trace.0.1"), std::ios::binary | std::ios::app)
        << "more";
    HdfsMirror m(opts);
    auto st = m.mirror(srv.url("/runs"));
    ASSERT_TRUE(st);
    EXPECT_EQ(st->filesAppended, 1u);
    xdl::PartFile p = attached(m, "runs/r1/train.trace.0.1");
    ASSERT_TRUE(p.fetcher->ensure(0, data.size() + 4));
    EXPECT_EQ(served("/runs/r1/train.trace.0.1"), data.size() + 4);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), data + "more");
    // And back: a whole mirror replaces a sparse copy by a whole one.
    ASSERT_TRUE(HdfsMirror(whole).mirror(srv.url("/runs")));
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), data + "more");
    EXPECT_FALSE(
        fs::exists(rangeMapPath(cache.path().string(), "127.0.0.1/runs/r1/train.trace.0.1")));
}

TEST_F(SparseFixture, LiveFollowingFetchesEachAppendedByteOnce) {
    fs::create_directories(remote.path() / "live");
    const std::string file = remote.file("live/train.trace.0.1");
    test::writeFile(file, test::simpleFile(3, 5000));
    test::writeFile(file + ".meta", "");
    std::mutex mutex;
    std::condition_variable cv;
    std::size_t records = 0;
    auto poller = MirrorPoller::start(opts, srv.url("/live"), std::chrono::milliseconds(20),
                                      [&](const Result<MirrorStatus>&) { cv.notify_all(); });
    ASSERT_TRUE(poller) << poller.status().toString();
    xdl::FollowOptions fo;
    fo.minInterval = std::chrono::milliseconds(5);
    fo.pollInterval = std::chrono::milliseconds(20);
    fo.preparePart = (*poller)->preparePart();
    auto follower = xdl::RunFollower::start((*poller)->localPath(), "train", "trace",
                                            [&](const xdl::FollowUpdate& u) {
                                                std::lock_guard lock(mutex);
                                                records = u.totalRecords;
                                                cv.notify_all();
                                            },
                                            fo);
    ASSERT_TRUE(follower) << follower.status().toString();
    const std::string five = test::simpleFile(5, 5000);
    std::ofstream(file, std::ios::binary | std::ios::app)
        << five.substr(test::simpleFile(3, 5000).size());
    test::writeFile(remote.file("live/train.trace.0.2"), test::simpleFile(2, 5000));
    {
        std::unique_lock lock(mutex);
        EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return records == 7; }))
            << "records seen: " << records;
    }
    (*follower)->withReader([&](const xdl::RunReader& run, const Diagnostics&) {
        auto t = run.ranks()[0].tensor(4, "w");
        ASSERT_TRUE(t) << t.status().toString();
        EXPECT_EQ(t->size(), 5000u);
    });
    (*follower)->stop();
    (*poller)->stop();
    EXPECT_EQ(served("/live/train.trace.0.1"), five.size());
    EXPECT_EQ(served("/live/train.trace.0.2"), test::simpleFile(2, 5000).size());
}

} // namespace
} // namespace xt::storage
