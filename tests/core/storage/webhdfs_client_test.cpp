// WebHdfsClient against the loopback WebHDFS test server: operations, error mapping, redirects,
// resumed reads, retries with backoff, timeouts, cancellation and authentication parameters.
#include "core/storage/webhdfs_client.h"
#include "tests/core/storage/webhdfs_test_server.h"
#include "tests/core/xdl/xdl_test_util.h"

#include <chrono>
#include <gtest/gtest.h>

namespace xt::storage {
namespace {

using test::TempDir;
using test::WebHdfsTestServer;

WebHdfsSettings fastSettings() {
    WebHdfsSettings s;
    s.user = "alice";
    s.connectTimeout = std::chrono::milliseconds(1000);
    s.stallTimeout = std::chrono::milliseconds(3000);
    s.maxAttempts = 4;
    s.initialBackoff = std::chrono::milliseconds(10);
    s.maxBackoff = std::chrono::milliseconds(50);
    return s;
}

HdfsUrl url(const WebHdfsTestServer& srv, const std::string& path) {
    return *parseHdfsUrl(srv.url(path));
}

using xt::test::pattern;

Result<std::string> readAll(WebHdfsClient& c, const HdfsUrl& u, std::uint64_t off = 0,
                            std::uint64_t len = UINT64_MAX) {
    std::string out;
    Status s = c.read(u, off, len, [&](const char* d, std::size_t n) {
        out.append(d, n);
        return Status::ok();
    });
    if (!s) return s;
    return out;
}

struct Fixture : ::testing::Test {
    TempDir root;
    WebHdfsTestServer srv{root.path().string()};
    WebHdfsClient client{fastSettings()};
    void SetUp() override { ASSERT_GT(srv.port(), 0) << "test server did not start"; }
    int count(const std::string& op) {
        std::string s = srv.control("stats=1");
        auto p = s.find("\"" + op + "\": ");
        return p == std::string::npos ? 0 : std::stoi(s.substr(p + op.size() + 4));
    }
};

TEST(HdfsUrl, Parses) {
    auto u = parseHdfsUrl("hdfs://nn1:9871/user/a//runs/");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->host, "nn1");
    EXPECT_EQ(u->port, 9871);
    EXPECT_EQ(u->path, "/user/a/runs");
    EXPECT_FALSE(u->https());
    auto s = parseHdfsUrl("swebhdfs://nn2/x%20y");
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->https());
    EXPECT_EQ(s->port, 0);
    EXPECT_EQ(s->path, "/x y");
    auto v6 = parseHdfsUrl("webhdfs://[::1]:50070/");
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->host, "::1");
    EXPECT_EQ(v6->path, "/");
    EXPECT_FALSE(parseHdfsUrl("hdfs:///no/host"));
    EXPECT_FALSE(parseHdfsUrl("hdfs://h:99999/x"));
    EXPECT_FALSE(parseHdfsUrl("hdfs://h/a/../b"));
    EXPECT_FALSE(parseHdfsUrl("/local/path"));
    EXPECT_TRUE(isHdfsUrl("webhdfs://h/x"));
    EXPECT_FALSE(isHdfsUrl("http://h/x"));
}

TEST(WebHdfsSettingsTest, FromEnvironment) {
    ::setenv("HADOOP_USER_NAME", "bob", 1);
    ::setenv("XT_WEBHDFS_PORT", "50070", 1);
    ::setenv("XT_WEBHDFS_HOST_PORTS", "nn1=9871, nn2=14000,bad", 1);
    ::setenv("XT_HDFS_NAMESERVICES", "prod=nn1:9870,nn2:9870;dev=nn3", 1);
    ::setenv("XT_HDFS_DELEGATION", "tok", 1);
    WebHdfsSettings s = webHdfsSettingsFromEnvironment();
    for (const char* v : {"HADOOP_USER_NAME", "XT_WEBHDFS_PORT", "XT_WEBHDFS_HOST_PORTS",
                          "XT_HDFS_NAMESERVICES", "XT_HDFS_DELEGATION"})
        ::unsetenv(v);
    EXPECT_EQ(s.user, "bob");
    EXPECT_EQ(s.defaultPort, 50070);
    EXPECT_EQ(s.hostPorts, (std::map<std::string, std::uint16_t>{{"nn1", 9871}, {"nn2", 14000}}));
    EXPECT_EQ(s.nameservices["prod"], (std::vector<std::string>{"nn1:9870", "nn2:9870"}));
    EXPECT_EQ(s.nameservices["dev"], (std::vector<std::string>{"nn3"}));
    EXPECT_EQ(s.auth, HdfsAuth::Delegation);
    EXPECT_EQ(s.delegationToken, "tok");
}

TEST(WebHdfsSettingsTest, KerberosSupportIsReported) {
    std::string why;
    bool ok = kerberosSupported(&why);
    EXPECT_TRUE(ok || why.find("SPNEGO") != std::string::npos) << why;
}

TEST_F(Fixture, StatusAndListing) {
    std::filesystem::create_directories(root.path() / "runs/a");
    test::writeFile(root.file("runs/a/train.trace.0.1"), pattern(1000));
    test::writeFile(root.file("runs/b.txt"), "hi");
    auto st = client.getFileStatus(url(srv, "/runs/a/train.trace.0.1"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(st->type, HdfsFileType::File);
    EXPECT_EQ(st->length, 1000u);
    EXPECT_GT(st->modificationTime, 0);
    EXPECT_NE(st->fileId, 0);
    auto ls = client.listStatus(url(srv, "/runs"));
    ASSERT_TRUE(ls) << ls.status().toString();
    ASSERT_EQ(ls->size(), 2u);
    EXPECT_EQ((*ls)[0].name, "a");
    EXPECT_EQ((*ls)[0].type, HdfsFileType::Directory);
    EXPECT_EQ((*ls)[1].name, "b.txt");
    EXPECT_EQ((*ls)[1].length, 2u);
}

TEST_F(Fixture, RemoteExceptionsBecomeClearErrors) {
    auto missing = client.getFileStatus(url(srv, "/nope"));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.status().code(), ErrorCode::NotFound);
    EXPECT_NE(missing.status().message().find("File does not exist: /nope"), std::string::npos);
    srv.control("fault=denied&op=LISTSTATUS&count=1");
    auto denied = client.listStatus(url(srv, "/"));
    ASSERT_FALSE(denied);
    EXPECT_EQ(denied.status().code(), ErrorCode::PermissionDenied);
    EXPECT_NE(denied.status().message().find("Permission denied"), std::string::npos);
    EXPECT_EQ(count("LISTSTATUS"), 1) << "permission errors are not retried";
}

TEST_F(Fixture, ReadFollowsRedirectWithOffsetAndLength) {
    std::string data = pattern(300000);
    test::writeFile(root.file("f"), data);
    auto all = readAll(client, url(srv, "/f"));
    ASSERT_TRUE(all) << all.status().toString();
    EXPECT_EQ(*all, data);
    auto mid = readAll(client, url(srv, "/f"), 1000, 5000);
    ASSERT_TRUE(mid);
    EXPECT_EQ(*mid, data.substr(1000, 5000));
    auto tail = readAll(client, url(srv, "/f"), 299990);
    ASSERT_TRUE(tail);
    EXPECT_EQ(*tail, data.substr(299990));
    EXPECT_EQ(count("OPEN"), 3);
    EXPECT_EQ(count("DN_OPEN"), 3);
    auto missing = readAll(client, url(srv, "/g"));
    EXPECT_EQ(missing.status().code(), ErrorCode::NotFound);
}

TEST_F(Fixture, DroppedReadResumesWhereItStopped) {
    std::string data = pattern(200000);
    test::writeFile(root.file("f"), data);
    srv.control("fault=drop&op=DN_OPEN&count=2");
    auto all = readAll(client, url(srv, "/f"), 10, UINT64_MAX);
    ASSERT_TRUE(all) << all.status().toString();
    EXPECT_EQ(*all, data.substr(10));
    EXPECT_EQ(count("DN_OPEN"), 3);
}

TEST_F(Fixture, TransientErrorsAreRetriedThenReported) {
    test::writeFile(root.file("f"), "abc");
    srv.control("fault=500&op=GETFILESTATUS&count=2");
    auto st = client.getFileStatus(url(srv, "/f"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(count("GETFILESTATUS"), 3);

    srv.control("clear=1&fault=standby&op=LISTSTATUS&count=10");
    auto t0 = std::chrono::steady_clock::now();
    auto ls = client.listStatus(url(srv, "/"));
    ASSERT_FALSE(ls);
    EXPECT_EQ(ls.status().code(), ErrorCode::IoError);
    EXPECT_NE(ls.status().message().find("standby"), std::string::npos) << ls.status().message();
    EXPECT_NE(ls.status().message().find("after 4 attempts"), std::string::npos);
    EXPECT_EQ(count("LISTSTATUS"), 4);
    // Backoff 10 + 20 + 40 ms (capped at 50).
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(70));

    srv.control("clear=1&fault=drop&op=OPEN&count=1");
    auto data = readAll(client, url(srv, "/f"));
    ASSERT_TRUE(data) << data.status().toString();
    EXPECT_EQ(*data, "abc");
}

TEST_F(Fixture, StalledResponseTimesOut) {
    WebHdfsSettings s = fastSettings();
    s.stallTimeout = std::chrono::milliseconds(300);
    s.maxAttempts = 1;
    WebHdfsClient c(s);
    test::writeFile(root.file("f"), "abc");
    srv.control("fault=slow&op=GETFILESTATUS&count=1&delay_ms=4000");
    auto t0 = std::chrono::steady_clock::now();
    auto st = c.getFileStatus(url(srv, "/f"));
    ASSERT_FALSE(st);
    EXPECT_EQ(st.status().code(), ErrorCode::IoError);
    EXPECT_NE(st.status().message().find("no data"), std::string::npos) << st.status().message();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(3000));
    // A slow but moving server within the limit is fine.
    srv.control("clear=1&fault=slow&op=GETFILESTATUS&count=1&delay_ms=100");
    EXPECT_TRUE(client.getFileStatus(url(srv, "/f")));
}

TEST_F(Fixture, UnreachableNamenodeIsAnIoError) {
    int port = srv.port();
    srv.stop();
    WebHdfsClient c(fastSettings());
    auto st = c.getFileStatus(*parseHdfsUrl("hdfs://127.0.0.1:" + std::to_string(port) + "/f"));
    ASSERT_FALSE(st);
    EXPECT_EQ(st.status().code(), ErrorCode::IoError);
    EXPECT_EQ(c.requestCount(), 4u);
    EXPECT_TRUE(c.unreachable());
    // The stopped server's port stays held, so a server that another test starts meanwhile (bound
    // as the test server binds) cannot take it and answer in the dead namenode's place.
    const std::string bind = "python3 -c \"import socket; s = socket.socket(); "
                             "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
                             "s.bind(('127.0.0.1', " +
                             std::to_string(port) + "))\" 2>/dev/null";
    EXPECT_NE(std::system(bind.c_str()), 0) << "port " << port << " was free again";
}

TEST_F(Fixture, CancelStopsARead) {
    test::writeFile(root.file("f"), pattern(8 << 20));
    std::uint64_t got = 0;
    Status s = client.read(
        url(srv, "/f"), 0, UINT64_MAX,
        [&](const char*, std::size_t n) {
            got += n;
            return Status::ok();
        },
        [&](const ProgressReport& r) { return r.done == 0 && got == 0; });
    EXPECT_EQ(s.code(), ErrorCode::Cancelled);
    EXPECT_LT(got, 8u << 20);
}

TEST_F(Fixture, CreateAndAppendTwoStep) {
    auto u = url(srv, "/out/dir/file.bin");
    ASSERT_TRUE(client.mkdirs(url(srv, "/out/dir")));
    ASSERT_TRUE(client.create(u, "hello ", false));
    EXPECT_EQ(test::readFile(root.file("out/dir/file.bin")), "hello ");
    ASSERT_TRUE(client.append(u, "world"));
    EXPECT_EQ(test::readFile(root.file("out/dir/file.bin")), "hello world");
    EXPECT_EQ(count("CREATE"), 1);
    EXPECT_EQ(count("DN_CREATE"), 1);
    EXPECT_EQ(count("APPEND"), 1);
    EXPECT_EQ(count("DN_APPEND"), 1);

    Status again = client.create(u, "x", false);
    EXPECT_FALSE(again);
    EXPECT_NE(again.message().find("already exists"), std::string::npos) << again.message();
    ASSERT_TRUE(client.create(u, "x", true));
    EXPECT_EQ(test::readFile(root.file("out/dir/file.bin")), "x");

    EXPECT_EQ(client.append(url(srv, "/out/none"), "z").code(), ErrorCode::NotFound);
    // A namenode hiccup before the data step is retried.
    srv.control("fault=standby&op=APPEND&count=2");
    ASSERT_TRUE(client.append(u, "y"));
    EXPECT_EQ(test::readFile(root.file("out/dir/file.bin")), "xy");
    // A failed data step is not retried: the bytes may have been written.
    srv.control("fault=500&op=DN_APPEND&count=1");
    Status unknown = client.append(u, "z");
    EXPECT_FALSE(unknown);
    EXPECT_EQ(count("DN_APPEND"), 3);
    ASSERT_TRUE(client.remove(url(srv, "/out"), true));
    EXPECT_FALSE(std::filesystem::exists(root.file("out")));
    EXPECT_EQ(client.remove(url(srv, "/out"), true).code(), ErrorCode::NotFound);
}

TEST_F(Fixture, RenameReplacesOnlyWhenAsked) {
    ASSERT_TRUE(client.mkdirs(url(srv, "/r")));
    ASSERT_TRUE(client.create(url(srv, "/r/.a.tmp"), "new", false));
    ASSERT_TRUE(client.create(url(srv, "/r/a"), "old", false));
    Status refused = client.rename(url(srv, "/r/.a.tmp"), url(srv, "/r/a"), false);
    EXPECT_EQ(refused.code(), ErrorCode::IoError);
    EXPECT_NE(refused.message().find("refused"), std::string::npos) << refused.message();
    EXPECT_EQ(test::readFile(root.file("r/a")), "old");
    ASSERT_TRUE(client.rename(url(srv, "/r/.a.tmp"), url(srv, "/r/a"), true));
    EXPECT_EQ(test::readFile(root.file("r/a")), "new");
    EXPECT_FALSE(std::filesystem::exists(root.file("r/.a.tmp")));
    EXPECT_NE(srv.control("stats=1").find("\"renameoptions\": \"OVERWRITE\""), std::string::npos);
    srv.control("fault=denied&op=RENAME&count=1");
    EXPECT_EQ(client.rename(url(srv, "/r/a"), url(srv, "/r/b"), true).code(),
              ErrorCode::PermissionDenied);
}

TEST_F(Fixture, ReplaceWritesATemporaryFileThenRenamesIt) {
    ASSERT_TRUE(client.mkdirs(url(srv, "/p")));
    ASSERT_TRUE(client.replace(url(srv, "/p/a.xts"), "one"));
    ASSERT_TRUE(client.replace(url(srv, "/p/a.xts"), "two"));
    EXPECT_EQ(test::readFile(root.file("p/a.xts")), "two");
    EXPECT_EQ(count("RENAME"), 2);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(root.file("p")), {}), 1)
        << "no temporary file is left";
    // Refused: the reason comes back and nothing is left behind.
    srv.control("fault=denied&op=CREATE&count=1");
    EXPECT_EQ(client.replace(url(srv, "/p/a.xts"), "three").code(), ErrorCode::PermissionDenied);
    srv.control("fault=denied&op=RENAME&count=1");
    EXPECT_EQ(client.replace(url(srv, "/p/a.xts"), "four").code(), ErrorCode::PermissionDenied);
    EXPECT_EQ(test::readFile(root.file("p/a.xts")), "two");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(root.file("p")), {}), 1);
}

TEST_F(Fixture, HttpFsSendsDataInOneRequest) {
    WebHdfsSettings s = fastSettings();
    s.httpfs = true;
    WebHdfsClient c(s);
    auto u = url(srv, "/h/file");
    Status created = c.create(u, "abc", false);
    ASSERT_TRUE(created) << created.toString();
    Status appended = c.append(u, "def");
    ASSERT_TRUE(appended) << appended.toString();
    EXPECT_EQ(test::readFile(root.file("h/file")), "abcdef");
    EXPECT_EQ(count("CREATE"), 1);
    EXPECT_EQ(count("DN_CREATE"), 0);
    EXPECT_EQ(count("DN_APPEND"), 0);
}

TEST_F(Fixture, MissingKerberosCredentialsAreAPermissionError) {
    test::writeFile(root.file("f"), "abc");
    srv.control("require_negotiate=1");
    auto simple = client.getFileStatus(url(srv, "/f"));
    ASSERT_FALSE(simple);
    EXPECT_EQ(simple.status().code(), ErrorCode::PermissionDenied);
    EXPECT_NE(simple.status().message().find("authentication required"), std::string::npos)
        << simple.status().message();
    WebHdfsSettings s = fastSettings();
    s.auth = HdfsAuth::Kerberos;
    WebHdfsClient k(s);
    auto kerberos = k.getFileStatus(url(srv, "/f")); // no ticket cache in the test environment
    ASSERT_FALSE(kerberos);
    std::string why;
    EXPECT_EQ(kerberos.status().code(),
              kerberosSupported(&why) ? ErrorCode::PermissionDenied : ErrorCode::Unsupported)
        << kerberos.status().message();
    EXPECT_EQ(srv.control("stats=1").find("user.name\": \"alice"), std::string::npos)
        << "no user.name with Kerberos";
}

TEST_F(Fixture, HaNameserviceFailsOverToTheActiveNamenode) {
    test::writeFile(root.file("f"), "abc");
    WebHdfsSettings s = fastSettings();
    s.nameservices["prod"] = {"127.0.0.1:1", "127.0.0.1:" + std::to_string(srv.port())};
    WebHdfsClient c(s);
    auto st = c.getFileStatus(*parseHdfsUrl("hdfs://prod/f"));
    ASSERT_TRUE(st) << st.status().toString();
    EXPECT_EQ(c.requestCount(), 2u);
    // The namenode that answered is remembered.
    auto data = readAll(c, *parseHdfsUrl("hdfs://prod/f"));
    ASSERT_TRUE(data) << data.status().toString();
    EXPECT_EQ(*data, "abc");
    EXPECT_EQ(c.requestCount(), 4u); // OPEN + datanode
    // A standby answer moves on to the next namenode as well.
    srv.control("fault=standby&op=GETFILESTATUS&count=1");
    s.nameservices["prod"] = {"127.0.0.1:" + std::to_string(srv.port()), "127.0.0.1:1",
                              "127.0.0.1:" + std::to_string(srv.port())};
    WebHdfsClient d(s);
    EXPECT_TRUE(d.getFileStatus(*parseHdfsUrl("hdfs://prod/f")));
    EXPECT_EQ(d.requestCount(), 3u);
}

TEST_F(Fixture, AuthenticationParameters) {
    test::writeFile(root.file("f"), "abc");
    ASSERT_TRUE(client.getFileStatus(url(srv, "/f")));
    EXPECT_NE(srv.control("stats=1").find("\"user.name\": \"alice\""), std::string::npos);
    WebHdfsSettings s = fastSettings();
    s.auth = HdfsAuth::Delegation;
    s.delegationToken = "tok+en/1";
    WebHdfsClient c(s);
    ASSERT_TRUE(readAll(c, url(srv, "/f")));
    std::string stats = srv.control("stats=1");
    EXPECT_NE(stats.find("\"delegation\": \"tok+en/1\""), std::string::npos) << stats;
}

TEST_F(Fixture, PerHostPortOverride) {
    test::writeFile(root.file("f"), "abc");
    WebHdfsSettings s = fastSettings();
    s.hostPorts["127.0.0.1"] = static_cast<std::uint16_t>(srv.port());
    WebHdfsClient c(s);
    // The URL names the RPC port; the override sends the request to the HTTP port.
    auto st = c.getFileStatus(*parseHdfsUrl("hdfs://127.0.0.1:8020/f"));
    ASSERT_TRUE(st) << st.status().toString();
    s.hostPorts.clear();
    s.defaultPort = static_cast<std::uint16_t>(srv.port());
    WebHdfsClient d(s);
    EXPECT_TRUE(d.getFileStatus(*parseHdfsUrl("webhdfs://127.0.0.1/f")));
}

} // namespace
} // namespace xt::storage
