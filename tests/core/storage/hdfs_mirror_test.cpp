// HdfsMirror against the loopback WebHDFS test server: first download, append-only refresh,
// replaced files, new and deleted parts, offline use, LRU eviction, cancellation, mirrorPaths,
// reading a mirrored run with core/xdl, and `xtrace info hdfs://...` end to end.
#include "core/storage/hdfs_mirror.h"
#include "core/storage/mirror_poller.h"
#include "core/xdl/run_discovery.h"
#include "core/xdl/run_follower.h"
#include "core/xdl/trace_reader.h"
#include "tests/core/storage/webhdfs_test_server.h"
#include "tests/core/xdl/xdl_test_util.h"

#include <condition_variable>
#include <cstdio>
#include <gtest/gtest.h>
#include <mutex>
#include <sys/wait.h>

namespace xt::storage {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::WebHdfsTestServer;

using xt::test::pattern;

void appendFile(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

// Writes through a new inode, as HDFS does when a file is deleted and written again.
void replaceFile(const std::string& path, const std::string& bytes) {
    test::writeFile(path + ".new", bytes);
    fs::rename(path + ".new", path);
}

struct MirrorFixture : ::testing::Test {
    TempDir remote, cache;
    WebHdfsTestServer srv{remote.path().string()};
    MirrorOptions opts;
    void SetUp() override {
        ASSERT_GT(srv.port(), 0) << "test server did not start";
        opts.cacheDir = cache.path().string();
        opts.webhdfs.connectTimeout = std::chrono::milliseconds(1000);
        opts.webhdfs.initialBackoff = std::chrono::milliseconds(10);
        opts.webhdfs.maxBackoff = std::chrono::milliseconds(40);
        fs::create_directories(remote.path() / "runs/r1");
        test::writeFile(remote.file("runs/r1/train.trace.0.1"), pattern(100000));
        test::writeFile(remote.file("runs/r1/train.trace.0.1.meta"), "");
        test::writeFile(remote.file("runs/r1/train.trace.1.1"), pattern(50000, 1));
        test::writeFile(remote.file("runs/r1/train.trace.1.1.meta"), "");
        test::writeFile(remote.file("runs/r1/notes.txt"), "not a trace file");
    }
    std::string local(const std::string& rel) const { return cache.file("127.0.0.1/" + rel); }
    std::string stats() { return srv.control("stats=1"); }
};

TEST_F(MirrorFixture, FirstDownloadThenNothingToFetch) {
    HdfsMirror m(opts);
    std::vector<std::uint64_t> seen;
    auto st = m.mirror(srv.url("/runs"), [&](const ProgressReport& r) {
        seen.push_back(r.done);
        return true;
    });
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_FALSE(st->offline);
    EXPECT_EQ(st->localPath, local("runs"));
    EXPECT_EQ(st->filesNew, 4u);
    EXPECT_EQ(st->bytesFetched, 150000u);
    EXPECT_EQ(st->changedFiles.size(), 4u);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(100000));
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.1.1")), pattern(50000, 1));
    EXPECT_TRUE(fs::exists(local("runs/r1/train.trace.1.1.meta")));
    EXPECT_FALSE(fs::exists(local("runs/r1/notes.txt"))) << "only run files are mirrored";
    EXPECT_FALSE(seen.empty());

    auto again = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->bytesFetched, 0u);
    EXPECT_EQ(again->filesNew + again->filesAppended + again->filesReplaced, 0u);
    EXPECT_TRUE(again->changedFiles.empty());
    // Two data files read once each; the empty metas need no read.
    EXPECT_NE(stats().find("\"DN_OPEN\": 2"), std::string::npos) << stats();
    auto bytes = m.cachedBytes();
    ASSERT_TRUE(bytes);
    EXPECT_EQ(*bytes, 150000u);
}

TEST_F(MirrorFixture, RefreshFetchesOnlyAppendedBytes) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    appendFile(remote.file("runs/r1/train.trace.0.1"), pattern(5000, 7));
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->filesAppended, 1u);
    EXPECT_EQ(st->filesReplaced, 0u);
    EXPECT_EQ(st->bytesFetched, 5000u);
    ASSERT_EQ(st->changedFiles.size(), 1u);
    EXPECT_EQ(st->changedFiles[0], local("runs/r1/train.trace.0.1"));
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(100000) + pattern(5000, 7));
    // The read started 4096 bytes before the old end, to prove the old bytes are unchanged.
    EXPECT_NE(stats().find("\"offset\": \"95904\""), std::string::npos) << stats();
}

TEST_F(MirrorFixture, ReplacedFilesAreFetchedAgain) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    // New inode, longer.
    replaceFile(remote.file("runs/r1/train.trace.0.1"), pattern(120000, 3));
    // Shorter.
    test::writeFile(remote.file("runs/r1/train.trace.1.1"), pattern(100, 4));
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->filesReplaced, 2u);
    EXPECT_EQ(st->filesAppended, 0u);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(120000, 3));
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.1.1")), pattern(100, 4));
}

TEST_F(MirrorFixture, ReplacementWithoutFileIdIsCaughtByTheTailCheck) {
    srv.control("no_fileid=1");
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    std::string changed = pattern(100000);
    changed[99000] ^= 0x55; // same length prefix region differs near the old end
    replaceFile(remote.file("runs/r1/train.trace.0.1"), changed + "more");
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->filesReplaced, 1u);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), changed + "more");
}

TEST_F(MirrorFixture, NewPartsArriveAndDeletedOnesLeave) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    test::writeFile(remote.file("runs/r1/train.trace.0.2"), pattern(2000, 9));
    test::writeFile(remote.file("runs/r1/train.trace.0.2.meta"), "");
    fs::remove(remote.file("runs/r1/train.trace.1.1"));
    fs::remove(remote.file("runs/r1/train.trace.1.1.meta"));
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->filesNew, 2u);
    EXPECT_EQ(st->filesRemoved, 2u);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.2")), pattern(2000, 9));
    EXPECT_FALSE(fs::exists(local("runs/r1/train.trace.1.1")));
}

TEST_F(MirrorFixture, DroppedTransfersResume) {
    srv.control("fault=drop&op=DN_OPEN&count=3");
    HdfsMirror m(opts);
    auto st = m.mirror(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(100000));
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.1.1")), pattern(50000, 1));
}

TEST_F(MirrorFixture, OfflineUsesTheLocalCopy) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    std::string url = srv.url("/runs");
    srv.stop();
    auto st = m.refresh(url);
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_TRUE(st->offline);
    EXPECT_FALSE(st->offlineReason.empty());
    EXPECT_EQ(st->localPath, local("runs"));
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(100000));

    MirrorOptions other = opts;
    TempDir empty;
    other.cacheDir = empty.path().string();
    HdfsMirror fresh(other);
    auto none = fresh.mirror(url);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.status().code(), ErrorCode::IoError);
    EXPECT_NE(none.status().message().find("no local copy"), std::string::npos);
}

TEST_F(MirrorFixture, NamenodeDownDuringDownloadKeepsWhatIsThere) {
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs")));
    appendFile(remote.file("runs/r1/train.trace.0.1"), "tail");
    srv.control("fault=500&op=OPEN&count=100");
    auto st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_TRUE(st->offline);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(100000));
    srv.control("clear=1");
    st = m.refresh(srv.url("/runs"));
    ASSERT_TRUE(st);
    EXPECT_FALSE(st->offline);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(100000) + "tail");
}

TEST_F(MirrorFixture, MissingUrlIsNotFound) {
    HdfsMirror m(opts);
    auto st = m.mirror(srv.url("/nowhere"));
    ASSERT_FALSE(st);
    EXPECT_EQ(st.status().code(), ErrorCode::NotFound);
}

TEST_F(MirrorFixture, LeastRecentlyUsedFilesAreEvicted) {
    fs::create_directories(remote.path() / "runs2/r2");
    test::writeFile(remote.file("runs2/r2/train.trace.0.1"), pattern(60000, 5));
    opts.maxBytes = 100000;
    HdfsMirror m(opts);
    ASSERT_TRUE(m.mirror(srv.url("/runs"))); // 150000 bytes: over, nothing older
    auto st = m.mirror(srv.url("/runs2"));   // the /runs files are older
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_GT(st->filesEvicted, 0u);
    auto bytes = m.cachedBytes();
    ASSERT_TRUE(bytes);
    EXPECT_LE(*bytes, 100000u);
    EXPECT_TRUE(fs::exists(local("runs2/r2/train.trace.0.1")));
    EXPECT_FALSE(fs::exists(local("runs/r1/train.trace.0.1")));
    // Coming back fetches the evicted files again.
    auto back = m.mirror(srv.url("/runs"));
    ASSERT_TRUE(back);
    EXPECT_GT(back->filesNew, 0u);
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(100000));
}

TEST_F(MirrorFixture, CancelLeavesNoPartialFile) {
    test::writeFile(remote.file("runs/r1/train.trace.0.1"), pattern(4 << 20));
    HdfsMirror m(opts);
    auto st = m.mirror(srv.url("/runs/r1/train.trace.0.1"),
                       [](const ProgressReport& r) { return r.done < 1000000; });
    ASSERT_FALSE(st);
    EXPECT_EQ(st.status().code(), ErrorCode::Cancelled);
    EXPECT_FALSE(fs::exists(local("runs/r1/train.trace.0.1")));
    auto ok = m.mirror(srv.url("/runs/r1/train.trace.0.1"));
    ASSERT_TRUE(ok) << ok.status().toString();
    EXPECT_EQ(test::readFile(local("runs/r1/train.trace.0.1")), pattern(4 << 20));
    EXPECT_TRUE(fs::exists(local("runs/r1/train.trace.0.1.meta"))) << "the meta comes along";
}

TEST_F(MirrorFixture, MirrorPathsMapsUrlsAndGlobs) {
    std::vector<MirrorStatus> statuses;
    auto paths =
        mirrorPaths({"/some/local/dir", srv.url("/runs/r1/train.trace.*.1")}, opts, {}, &statuses);
    ASSERT_TRUE(paths) << paths.status().toString();
    ASSERT_EQ(paths->size(), 2u);
    EXPECT_EQ((*paths)[0], "/some/local/dir");
    EXPECT_EQ((*paths)[1], local("runs/r1/train.trace.*.1"));
    ASSERT_EQ(statuses.size(), 1u);
    EXPECT_EQ(statuses[0].filesNew, 4u) << "both data files and their metas";
    // The run's directory next to the mirrored glob maps back to its URL.
    EXPECT_EQ(remoteUrlOf(local("runs/r1"), statuses), srv.url("/runs/r1"));
    EXPECT_EQ(remoteUrlOf("/some/local/dir", statuses), "");
}

TEST(RemoteUrlOf, MapsMirrorPathsBackToTheirUrls) {
    MirrorStatus dir, file, root;
    dir.url = "hdfs://nn:8020/user/me/exp";
    dir.localPath = "/cache/nn/user/me/exp";
    file.url = "webhdfs://other/data/train.trace.0.1";
    file.localPath = "/cache/other/data/train.trace.0.1";
    root.url = "hdfs://top";
    root.localPath = "/cache/top/";
    const std::vector<MirrorStatus> all{dir, file, root};
    EXPECT_EQ(remoteUrlOf("/cache/nn/user/me/exp", all), "hdfs://nn:8020/user/me/exp");
    EXPECT_EQ(remoteUrlOf("/cache/nn/user/me/exp/a/run/", all), "hdfs://nn:8020/user/me/exp/a/run");
    EXPECT_EQ(remoteUrlOf("/cache/other/data", all), "webhdfs://other/data");
    EXPECT_EQ(remoteUrlOf("/cache/top/r", all), "hdfs://top/r");
    EXPECT_EQ(remoteUrlOf("/cache/top", all), "hdfs://top/");
    EXPECT_EQ(remoteUrlOf("/cache/nn/user/me/exp2", all), "") << "a sibling, not below";
    EXPECT_EQ(remoteUrlOf("/elsewhere", all), "");
    EXPECT_EQ(remoteUrlOf("/cache/nn/user/me/exp", {}), "");
}

TEST_F(MirrorFixture, ListingAndRemoteDiscoveryFetchNothing) {
    test::writeFile(remote.file("runs/r1/train.trace.0.2"), pattern(10));
    test::writeFile(remote.file("runs/r1/test.other.3.1"), pattern(20));
    HdfsMirror m(opts);
    auto listed = m.list(srv.url("/runs"));
    ASSERT_TRUE(listed) << listed.status().toString();
    std::map<std::string, std::uint64_t> sizes;
    for (const auto& f : *listed)
        sizes[f.url] = f.size;
    EXPECT_EQ(sizes.size(), 6u); // 4 data files, 2 metas; notes.txt is not a run file
    EXPECT_EQ(sizes[srv.url("/runs/r1/train.trace.0.1")], 100000u);
    EXPECT_EQ(sizes[srv.url("/runs/r1/train.trace.1.1.meta")], 0u);
    auto runs = discoverRemoteRuns(srv.url("/runs"), opts);
    ASSERT_TRUE(runs) << runs.status().toString();
    ASSERT_EQ(runs->size(), 2u);
    const auto& r = (*runs)[1]; // ordered by (directory, prefix, name): "test" < "train"
    EXPECT_EQ(r.directory, srv.url("/runs/r1"));
    EXPECT_EQ(r.prefix, "train");
    EXPECT_EQ(r.name, "trace");
    ASSERT_EQ(r.ranks.size(), 2u);
    ASSERT_EQ(r.ranks[0].parts.size(), 2u);
    EXPECT_EQ(r.ranks[0].parts[1].path, srv.url("/runs/r1/train.trace.0.2"));
    EXPECT_EQ(r.ranks[0].parts[1].index, 2);
    EXPECT_EQ(r.ranks[0].parts[1].size, 10u);
    EXPECT_EQ((*runs)[0].ranks[0].rank, 3);
    EXPECT_FALSE(fs::exists(cache.file("127.0.0.1"))) << "listing fetched files";
    auto one = discoverRemoteRuns(srv.url("/runs/r1/train.trace.1.1"), opts);
    ASSERT_TRUE(one);
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ((*one)[0].ranks[0].parts.size(), 1u);
    EXPECT_EQ(discoverRemoteRuns(srv.url("/nowhere"), opts).status().code(), ErrorCode::NotFound);
}

TEST_F(MirrorFixture, FollowALiveRunByPolling) {
    fs::create_directories(remote.path() / "live");
    std::string file = remote.file("live/train.trace.0.1");
    test::writeFile(file, test::simpleFile(3));
    test::writeFile(file + ".meta", "");
    HdfsMirror m(opts);
    auto records = [&](const std::string& dir) -> std::size_t {
        Diagnostics diag;
        auto runs = xdl::discoverRuns({dir}, diag);
        if (!runs || runs->size() != 1) return 0;
        auto run = xdl::RunReader::open((*runs)[0], diag);
        if (!run) return 0;
        return run->ranks()[0].parts()[0]->index().records().size();
    };
    auto st = m.mirror(srv.url("/live"));
    ASSERT_TRUE(st);
    EXPECT_EQ(records(st->localPath), 3u);
    std::string more = test::simpleFile(5).substr(test::simpleFile(3).size());
    appendFile(file, more);
    st = m.refresh(srv.url("/live"));
    ASSERT_TRUE(st);
    EXPECT_EQ(st->filesAppended, 1u);
    EXPECT_EQ(st->bytesFetched, more.size());
    EXPECT_EQ(records(st->localPath), 5u);
}

TEST_F(MirrorFixture, PollerAndRunFollowerFollowALiveRun) {
    fs::create_directories(remote.path() / "live");
    std::string file = remote.file("live/train.trace.0.1");
    test::writeFile(file, test::simpleFile(3));
    test::writeFile(file + ".meta", "");
    std::mutex mutex;
    std::condition_variable cv;
    std::size_t records = 0, refreshes = 0;
    auto poller = MirrorPoller::start(opts, srv.url("/live"), std::chrono::milliseconds(20),
                                      [&](const Result<MirrorStatus>& st) {
                                          std::lock_guard lock(mutex);
                                          if (st && !st->offline) ++refreshes;
                                          cv.notify_all();
                                      });
    ASSERT_TRUE(poller) << poller.status().toString();
    EXPECT_EQ((*poller)->localPath(), local("live"));
    xdl::FollowOptions fo;
    fo.minInterval = std::chrono::milliseconds(5);
    fo.pollInterval = std::chrono::milliseconds(20);
    auto follower = xdl::RunFollower::start((*poller)->localPath(), "train", "trace",
                                            [&](const xdl::FollowUpdate& u) {
                                                std::lock_guard lock(mutex);
                                                records = u.totalRecords;
                                                cv.notify_all();
                                            },
                                            fo);
    ASSERT_TRUE(follower) << follower.status().toString();
    std::string five = test::simpleFile(5);
    appendFile(file, five.substr(test::simpleFile(3).size()));
    test::writeFile(remote.file("live/train.trace.0.2"), test::simpleFile(2));
    std::unique_lock lock(mutex);
    // The follower may see the bytes before the refresh that brought them reports back.
    bool done =
        cv.wait_for(lock, std::chrono::seconds(10), [&] { return records == 7 && refreshes > 0; });
    EXPECT_TRUE(done) << "records seen: " << records << ", refreshes: " << refreshes;
    lock.unlock();
    (*follower)->stop();
    (*poller)->stop();
}

TEST_F(MirrorFixture, XtraceInfoReadsAnHdfsUrl) {
    fs::create_directories(remote.path() / "exp/run");
    test::writeFile(remote.file("exp/run/train.trace.0.1"), test::simpleFile(4));
    test::writeFile(remote.file("exp/run/train.trace.0.1.meta"), "");
    test::writeFile(remote.file("exp/run/train.trace.1.1"), test::simpleFile(2));
    std::string out = cache.file("out.json");
    std::string cmd = "XDG_CACHE_HOME='" + cache.path().string() + "' '" XT_XTRACE "' info '" +
                      srv.url("/exp") + "' --json > '" + out + "' 2>&1";
    int rc = std::system(cmd.c_str());
    std::string text = test::readFile(out);
    ASSERT_EQ(WEXITSTATUS(rc), 0) << text;
    EXPECT_NE(text.find("\"records\": 6"), std::string::npos) << text;
    EXPECT_TRUE(fs::exists(cache.file("xtview/hdfs/127.0.0.1/exp/run/train.trace.1.1")));
    // Shown by their URLs, never by mirror paths.
    EXPECT_NE(text.find("\"path\": \"" + srv.url("/exp/run/train.trace.1.1") + "\""),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\"label\": \"" + srv.url("/exp/run/train.trace") + "\""),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("xtview/hdfs"), std::string::npos) << text;
    // Text output too: the run and its rank's tensors by their URL.
    const std::string label = srv.url("/exp/run/train.trace");
    cmd = "XDG_CACHE_HOME='" + cache.path().string() + "' '" XT_XTRACE "' info '" +
          srv.url("/exp") + "' > '" + out + "' 2>&1";
    rc = std::system(cmd.c_str());
    text = test::readFile(out);
    EXPECT_EQ(WEXITSTATUS(rc), 0) << text;
    EXPECT_EQ(text.rfind("run " + label + "\n", 0), 0u) << text;
    cmd = "XDG_CACHE_HOME='" + cache.path().string() + "' '" XT_XTRACE "' dump '" +
          srv.url("/exp") + "' --key w > '" + out + "' 2>&1";
    rc = std::system(cmd.c_str());
    text = test::readFile(out);
    EXPECT_EQ(WEXITSTATUS(rc), 0) << text;
    EXPECT_NE(text.find("# run " + label + " rank 0 key w"), std::string::npos) << text;
    EXPECT_EQ(text.find(cache.path().string()), std::string::npos) << text;
    // Offline: the mirror still answers, with a warning on stderr.
    std::string url = srv.url("/exp");
    srv.stop();
    cmd = "XDG_CACHE_HOME='" + cache.path().string() + "' '" XT_XTRACE "' info '" + url + "' > '" +
          out + "' 2>&1";
    rc = std::system(cmd.c_str());
    text = test::readFile(out);
    EXPECT_EQ(WEXITSTATUS(rc), 0) << text;
    EXPECT_NE(text.find("offline"), std::string::npos) << text;
    // Unreachable with nothing mirrored: unreadable input.
    cmd = "XDG_CACHE_HOME='" + cache.path().string() + "' '" XT_XTRACE "' info '" + url +
          "/other' > '" + out + "' 2>&1";
    rc = std::system(cmd.c_str());
    EXPECT_EQ(WEXITSTATUS(rc), 2) << test::readFile(out);
}

} // namespace
} // namespace xt::storage
