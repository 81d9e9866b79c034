#pragma once
// A WebHDFS / HttpFS REST client over libcurl. URLs are hdfs://host[:port]/path and
// webhdfs://host[:port]/path (plain HTTP) or swebhdfs://host[:port]/path (HTTPS); the port is the
// namenode's HTTP port. Errors are values; transient failures are retried with exponential
// backoff. One client serves one thread at a time (it reuses one curl handle and its connections).

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/storage/webhdfs_json.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace xt::storage {

enum class HdfsAuth {
    Simple,     // user.name=<user> (no parameter when the user is empty)
    Delegation, // delegation=<token>
    Kerberos,   // SPNEGO through libcurl (CURLAUTH_NEGOTIATE) with the caller's ticket cache
};

struct WebHdfsSettings {
    std::uint16_t defaultPort = 9870;               // when a URL names no port
    std::map<std::string, std::uint16_t> hostPorts; // per-host port, over defaultPort
    // HA: a logical nameservice (the URL's host) -> its namenodes "host[:port]", tried in turn
    // when one is in standby or down; the last one that answered is used first.
    std::map<std::string, std::vector<std::string>> nameservices;
    HdfsAuth auth = HdfsAuth::Simple;
    std::string user;            // Simple
    std::string delegationToken; // Delegation
    bool httpfs = false;         // HttpFS gateway: CREATE/APPEND in one request (data=true)
    std::chrono::milliseconds connectTimeout{5000};
    std::chrono::milliseconds stallTimeout{15000}; // a transfer moving no byte this long fails
    int maxAttempts = 4;                           // per operation, first try included
    std::chrono::milliseconds initialBackoff{200}; // doubled after each failed attempt
    std::chrono::milliseconds maxBackoff{5000};
};

// Settings from the environment: HADOOP_USER_NAME (or USER) for simple auth, XT_HDFS_DELEGATION
// (delegation token), XT_HDFS_KERBEROS=1, XT_WEBHDFS_PORT (default port), XT_WEBHDFS_HOST_PORTS
// ("nn1=9870,nn2=50070"), XT_HDFS_NAMESERVICES ("prod=nn1:9870,nn2:9870;dev=nn3").
WebHdfsSettings webHdfsSettingsFromEnvironment();

struct HdfsUrl {
    std::string scheme; // "hdfs", "webhdfs" or "swebhdfs"
    std::string host;
    std::uint16_t port = 0; // 0: not given
    std::string path;       // absolute, no trailing '/' except for the root
    bool https() const { return scheme == "swebhdfs"; }
    std::string toString() const;
};

// True for hdfs://, webhdfs:// and swebhdfs:// URLs.
bool isHdfsUrl(std::string_view s);
Result<HdfsUrl> parseHdfsUrl(std::string_view s);

// Receives file bytes as they arrive; returns a failed Status to abort the read.
using ByteSink = std::function<Status(const char* data, std::size_t size)>;

// Whether this libcurl can do SPNEGO (Kerberos); `why` explains when it cannot.
bool kerberosSupported(std::string* why = nullptr);

class WebHdfsClient {
public:
    explicit WebHdfsClient(WebHdfsSettings settings = {});
    ~WebHdfsClient();
    WebHdfsClient(WebHdfsClient&&) noexcept;
    WebHdfsClient& operator=(WebHdfsClient&&) noexcept;

    const WebHdfsSettings& settings() const { return m_settings; }

    // GETFILESTATUS. NotFound, PermissionDenied, IoError (unreachable after retries).
    Result<HdfsFileStatus> getFileStatus(const HdfsUrl& url, const ProgressCallback& cb = {});
    // LISTSTATUS of a directory (a file lists itself).
    Result<std::vector<HdfsFileStatus>> listStatus(const HdfsUrl& url,
                                                   const ProgressCallback& cb = {});
    // OPEN from `offset`, `length` bytes (all to the end when length is UINT64_MAX), following
    // the namenode's redirect to a datanode. A dropped transfer resumes where it stopped; bytes
    // reach `sink` exactly once, in order. Progress counts bytes of this read.
    Status read(const HdfsUrl& url, std::uint64_t offset, std::uint64_t length,
                const ByteSink& sink, const ProgressCallback& cb = {});
    // CREATE (two-step: namenode, then the Location it redirects to, with the data).
    Status create(const HdfsUrl& url, std::string_view data, bool overwrite,
                  const ProgressCallback& cb = {});
    // APPEND, two-step like create. A data step that fails after bytes may have been written
    // is not retried (the outcome is unknown) and reports IoError saying so.
    Status append(const HdfsUrl& url, std::string_view data, const ProgressCallback& cb = {});
    // Writes `data` to `url` so that readers see the old file or the new one, never a torn one:
    // CREATE of a hidden temporary name in the same folder, then RENAME over `url` (the
    // temporary file is deleted when that fails).
    Status replace(const HdfsUrl& url, std::string_view data, const ProgressCallback& cb = {});
    // RENAME within the same namespace (`to`'s host is not used); with `overwrite`, an existing
    // destination file is replaced atomically (renameoptions=OVERWRITE). IoError when refused.
    Status rename(const HdfsUrl& from, const HdfsUrl& to, bool overwrite,
                  const ProgressCallback& cb = {});
    // MKDIRS (parents included); true when the directory exists afterwards.
    Status mkdirs(const HdfsUrl& url, const ProgressCallback& cb = {});
    // DELETE; NotFound when nothing was there.
    Status remove(const HdfsUrl& url, bool recursive, const ProgressCallback& cb = {});

    // Requests sent so far (tests count retries with it).
    std::uint64_t requestCount() const { return m_requests; }
    // Whether the last request got no answer at all: no connection could be made to the
    // namenode or datanode, or its name did not resolve (a server that answered, even with an
    // error or a dropped transfer, is reachable).
    bool unreachable() const { return m_unreachable; }

private:
    struct Response;
    struct Curl;
    std::string endpoint(const HdfsUrl& url, std::string_view op, std::string_view extra) const;
    Status perform(const std::string& method, const std::string& url, std::string_view body,
                   Response& resp, const ByteSink* sink, const ProgressCallback& cb);
    Status withRetries(const HdfsUrl& url, const std::function<Status(bool& retryable)>& attempt,
                       const ProgressCallback& cb);
    Result<std::string> jsonRequest(const std::string& method, const HdfsUrl& url,
                                    std::string_view op, std::string_view extra,
                                    const ProgressCallback& cb);
    Status upload(const HdfsUrl& url, std::string_view op, std::string_view method,
                  std::string_view extra, std::string_view data, const ProgressCallback& cb);

    WebHdfsSettings m_settings;
    std::unique_ptr<Curl> m_curl;
    std::uint64_t m_requests = 0;
    bool m_unreachable = false;
    std::map<std::string, std::size_t> m_activeNamenode; // per nameservice
};

} // namespace xt::storage
