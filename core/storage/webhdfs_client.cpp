#include "core/storage/webhdfs_client.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <curl/curl.h>
#include <fmt/format.h>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace xt::storage {

namespace {

constexpr std::size_t kMaxErrorBody = 1 << 20;
constexpr std::uint64_t kToEnd = UINT64_MAX;

void globalInit() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

std::string percentEncode(std::string_view s, bool keepSlash) {
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
            (keepSlash && c == '/'))
            out += static_cast<char>(c);
        else
            out += fmt::format("%{:02X}", c);
    }
    return out;
}

std::string percentDecode(std::string_view s) {
    auto hex = [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    };
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() &&
            std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::vector<std::string> splitList(std::string_view s, char sep) {
    std::vector<std::string> out;
    while (!s.empty()) {
        auto p = s.find(sep);
        std::string_view item = s.substr(0, p);
        while (!item.empty() && item.front() == ' ')
            item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ')
            item.remove_suffix(1);
        if (!item.empty()) out.emplace_back(item);
        if (p == std::string_view::npos) break;
        s.remove_prefix(p + 1);
    }
    return out;
}

bool transientCurlError(CURLcode c) {
    switch (c) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return true;
    default:
        return false;
    }
}

} // namespace

// ---- URLs and settings -------------------------------------------------------------------------

bool isHdfsUrl(std::string_view s) {
    return startsWith(s, "hdfs://") || startsWith(s, "webhdfs://") || startsWith(s, "swebhdfs://");
}

Result<HdfsUrl> parseHdfsUrl(std::string_view s) {
    auto sep = s.find("://");
    if (sep == std::string_view::npos || !isHdfsUrl(s))
        return Status(ErrorCode::InvalidArgument, fmt::format("not an HDFS URL: {}", s));
    HdfsUrl u;
    u.scheme = std::string(s.substr(0, sep));
    std::string_view rest = s.substr(sep + 3);
    auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? "/" : rest.substr(slash);
    if (auto at = authority.rfind('@'); at != std::string_view::npos)
        authority = authority.substr(at + 1);
    auto colon = authority.rfind(':');
    auto bracket = authority.rfind(']');
    if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
        std::string_view port = authority.substr(colon + 1);
        bool digits =
            !port.empty() && port.size() <= 5 &&
            std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
        unsigned long v = digits ? std::strtoul(std::string(port).c_str(), nullptr, 10) : 0;
        if (v == 0 || v > 65535)
            return Status(ErrorCode::InvalidArgument, fmt::format("bad port in URL: {}", s));
        u.port = static_cast<std::uint16_t>(v);
        authority = authority.substr(0, colon);
    }
    if (authority.size() >= 2 && authority.front() == '[' && authority.back() == ']')
        authority = authority.substr(1, authority.size() - 2);
    if (authority.empty() || authority == "." || authority == "..")
        return Status(ErrorCode::InvalidArgument, fmt::format("no valid host in URL: {}", s));
    u.host = std::string(authority);
    std::string p = percentDecode(path.substr(0, path.find_first_of("?#")));
    std::string norm;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (!(p[i] == '/' && !norm.empty() && norm.back() == '/')) norm += p[i];
    while (norm.size() > 1 && norm.back() == '/')
        norm.pop_back();
    if (norm.empty()) norm = "/";
    for (std::size_t b = 1; b < norm.size();) {
        auto e = norm.find('/', b);
        std::string_view comp = std::string_view(norm).substr(b, e - b);
        if (comp == "." || comp == "..")
            return Status(ErrorCode::InvalidArgument,
                          fmt::format("'.' and '..' are not allowed in HDFS URLs: {}", s));
        if (e == std::string::npos) break;
        b = e + 1;
    }
    u.path = std::move(norm);
    return u;
}

std::string HdfsUrl::toString() const {
    return port ? fmt::format("{}://{}:{}{}", scheme, host, port, path)
                : fmt::format("{}://{}{}", scheme, host, path);
}

WebHdfsSettings webHdfsSettingsFromEnvironment() {
    WebHdfsSettings s;
    if (const char* u = std::getenv("HADOOP_USER_NAME"); u && *u)
        s.user = u;
    else if (const char* v = std::getenv("USER"); v && *v)
        s.user = v;
    if (const char* t = std::getenv("XT_HDFS_DELEGATION"); t && *t) {
        s.auth = HdfsAuth::Delegation;
        s.delegationToken = t;
    }
    if (const char* k = std::getenv("XT_HDFS_KERBEROS"); k && std::string_view(k) == "1")
        s.auth = HdfsAuth::Kerberos;
    // "nn1=9870,nn2=50070"
    if (const char* hp = std::getenv("XT_WEBHDFS_HOST_PORTS"); hp && *hp) {
        for (const auto& item : splitList(hp, ',')) {
            auto eq = item.find('=');
            if (eq == std::string::npos) continue;
            unsigned long v = std::strtoul(item.c_str() + eq + 1, nullptr, 10);
            if (v > 0 && v <= 65535)
                s.hostPorts[item.substr(0, eq)] = static_cast<std::uint16_t>(v);
        }
    }
    // "prod=nn1:9870,nn2:9870;dev=nn3"
    if (const char* ns = std::getenv("XT_HDFS_NAMESERVICES"); ns && *ns) {
        for (const auto& item : splitList(ns, ';')) {
            auto eq = item.find('=');
            if (eq == std::string::npos) continue;
            s.nameservices[item.substr(0, eq)] = splitList(item.substr(eq + 1), ',');
        }
    }
    if (const char* p = std::getenv("XT_WEBHDFS_PORT"); p && *p) {
        unsigned long v = std::strtoul(p, nullptr, 10);
        if (v > 0 && v <= 65535) s.defaultPort = static_cast<std::uint16_t>(v);
    }
    return s;
}

bool kerberosSupported(std::string* why) {
    globalInit();
    const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
    bool ok =
        info && (info->features & CURL_VERSION_SPNEGO) && (info->features & CURL_VERSION_GSSAPI);
    if (!ok && why)
        *why = fmt::format("libcurl {} was built without SPNEGO/GSS-API: Kerberos authentication "
                           "to WebHDFS is not available (use a delegation token instead)",
                           info ? info->version : "?");
    return ok;
}

// ---- Client ------------------------------------------------------------------------------------

struct WebHdfsClient::Curl {
    CURL* handle = nullptr;
    Curl() {
        globalInit();
        handle = curl_easy_init();
    }
    ~Curl() {
        if (handle) curl_easy_cleanup(handle);
    }
};

struct WebHdfsClient::Response {
    long code = 0;
    std::string body;
    std::string location;
    bool retryable = false;
    Status sinkStatus;
    std::uint64_t sunk = 0; // bytes given to the sink
};

WebHdfsClient::WebHdfsClient(WebHdfsSettings settings) : m_settings(std::move(settings)) {}
WebHdfsClient::~WebHdfsClient() = default;
WebHdfsClient::WebHdfsClient(WebHdfsClient&&) noexcept = default;
WebHdfsClient& WebHdfsClient::operator=(WebHdfsClient&&) noexcept = default;

std::string WebHdfsClient::endpoint(const HdfsUrl& url, std::string_view op,
                                    std::string_view extra) const {
    HdfsUrl target = url;
    auto ns = m_settings.nameservices.find(url.host);
    if (ns != m_settings.nameservices.end() && !ns->second.empty()) {
        auto active = m_activeNamenode.find(url.host);
        std::size_t i = active == m_activeNamenode.end() ? 0 : active->second;
        auto nn = parseHdfsUrl("hdfs://" + ns->second[i % ns->second.size()]);
        if (nn) target.host = nn->host, target.port = nn->port;
    }
    std::uint16_t port = m_settings.defaultPort;
    auto over = m_settings.hostPorts.find(target.host);
    if (over != m_settings.hostPorts.end())
        port = over->second;
    else if (target.port)
        port = target.port;
    std::string host =
        target.host.find(':') != std::string::npos ? "[" + target.host + "]" : target.host;
    std::string s = fmt::format("{}://{}:{}/webhdfs/v1{}?op={}", url.https() ? "https" : "http",
                                host, port, percentEncode(url.path, true), op);
    switch (m_settings.auth) {
    case HdfsAuth::Simple:
        if (!m_settings.user.empty()) s += "&user.name=" + percentEncode(m_settings.user, false);
        break;
    case HdfsAuth::Delegation:
        s += "&delegation=" + percentEncode(m_settings.delegationToken, false);
        break;
    case HdfsAuth::Kerberos:
        break;
    }
    if (!extra.empty()) s += fmt::format("&{}", extra);
    return s;
}

namespace {

struct TransferState {
    CURL* handle;
    std::string* body;
    const ByteSink* sink;
    Status* sinkStatus;
    std::uint64_t* sunk;
    const ProgressCallback* cb;
    std::uint64_t progressTotal;
    bool cancelled = false;
    bool stalled = false;
    std::chrono::steady_clock::time_point lastByte;
    std::chrono::milliseconds stallTimeout;
    curl_off_t lastNow = 0;
};

size_t onWrite(char* data, size_t size, size_t n, void* user) {
    auto* st = static_cast<TransferState*>(user);
    std::size_t bytes = size * n;
    long code = 0;
    curl_easy_getinfo(st->handle, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 200 && code < 300 && st->sink && *st->sink) {
        *st->sinkStatus = (*st->sink)(data, bytes);
        if (!st->sinkStatus->isOk()) return 0;
        *st->sunk += bytes;
    } else {
        // A JSON answer may be large (LISTSTATUS); one byte over its bound is kept so that the
        // parser reports the size rather than a truncated document. Error bodies stay small.
        const std::size_t cap =
            code >= 200 && code < 300 ? kMaxJsonResponseBytes + 1 : kMaxErrorBody;
        if (st->body->size() < cap) st->body->append(data, std::min(bytes, cap - st->body->size()));
    }
    return bytes;
}

int onProgress(void* user, curl_off_t, curl_off_t dlnow, curl_off_t, curl_off_t ulnow) {
    auto* st = static_cast<TransferState*>(user);
    auto now = std::chrono::steady_clock::now();
    curl_off_t moved = dlnow + ulnow;
    if (moved != st->lastNow) {
        st->lastNow = moved;
        st->lastByte = now;
    } else if (now - st->lastByte > st->stallTimeout) {
        st->stalled = true;
        return 1;
    }
    if (st->cb && *st->cb &&
        !(*st->cb)(ProgressReport{*st->sunk, st->progressTotal, "downloading"})) {
        st->cancelled = true;
        return 1;
    }
    return 0;
}

} // namespace

Status WebHdfsClient::perform(const std::string& method, const std::string& url,
                              std::string_view body, Response& resp, const ByteSink* sink,
                              const ProgressCallback& cb) {
    // libcurl (and the TLS library under it) is set up by the first request, not by the
    // constructor: a mirror built for a list of paths that has no URL in it loads nothing.
    if (!m_curl) m_curl = std::make_unique<Curl>();
    CURL* h = m_curl->handle;
    if (!h) return Status(ErrorCode::Internal, "curl_easy_init failed");
    ++m_requests;
    curl_easy_reset(h);
    resp = Response{};
    char errbuf[CURL_ERROR_SIZE] = {0};
    TransferState st{h,
                     &resp.body,
                     sink,
                     &resp.sinkStatus,
                     &resp.sunk,
                     &cb,
                     0,
                     false,
                     false,
                     std::chrono::steady_clock::now(),
                     m_settings.stallTimeout,
                     0};
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(m_settings.connectTimeout.count()));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, onWrite);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &st);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "xtview-webhdfs");
    if (m_settings.auth == HdfsAuth::Kerberos) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_NEGOTIATE);
        curl_easy_setopt(h, CURLOPT_USERPWD, ":");
    }
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Expect:");
    if (method == "GET") {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
        if (method == "PUT" || method == "POST") {
            headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data() ? body.data() : "");
        }
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp.code);
    if (char* loc = nullptr; curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK && loc)
        resp.location = loc;
    m_unreachable = rc != CURLE_OK && resp.code == 0 &&
                    (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                     rc == CURLE_COULDNT_RESOLVE_PROXY);
    if (rc == CURLE_OK) return Status::ok();
    if (!resp.sinkStatus.isOk()) return resp.sinkStatus;
    if (st.cancelled) return Status(ErrorCode::Cancelled, "cancelled");
    std::string what = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    if (st.stalled) {
        what = fmt::format("no data for {} ms", m_settings.stallTimeout.count());
        resp.retryable = true;
    } else {
        resp.retryable = transientCurlError(rc);
    }
    return Status(ErrorCode::IoError, fmt::format("{}: {}", url.substr(0, url.find('?')), what));
}

Status WebHdfsClient::withRetries(const HdfsUrl& url,
                                  const std::function<Status(bool& retryable)>& attempt,
                                  const ProgressCallback& cb) {
    if (m_settings.auth == HdfsAuth::Kerberos) {
        std::string why;
        if (!kerberosSupported(&why)) return Status(ErrorCode::Unsupported, why);
    }
    auto backoff = m_settings.initialBackoff;
    Status last;
    for (int i = 0; i < std::max(1, m_settings.maxAttempts); ++i) {
        if (i > 0) {
            auto until = std::chrono::steady_clock::now() + backoff;
            while (std::chrono::steady_clock::now() < until) {
                if (!reportProgress(cb, 0, 0, "waiting to retry"))
                    return Status(ErrorCode::Cancelled, "cancelled");
                std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
                    std::chrono::milliseconds(20),
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        until - std::chrono::steady_clock::now()) +
                        std::chrono::milliseconds(1)));
            }
            backoff = std::min(backoff * 2, m_settings.maxBackoff);
        }
        bool retryable = false;
        last = attempt(retryable);
        if (last.isOk() || !retryable) return last;
        // An HA nameservice: the next attempt goes to the next namenode (standby or down).
        if (m_settings.nameservices.count(url.host)) ++m_activeNamenode[url.host];
    }
    return Status(last.code(), fmt::format("{} (after {} attempts)", last.message(),
                                           std::max(1, m_settings.maxAttempts)));
}

Result<std::string> WebHdfsClient::jsonRequest(const std::string& method, const HdfsUrl& url,
                                               std::string_view op, std::string_view extra,
                                               const ProgressCallback& cb) {
    std::string out;
    std::string what = fmt::format("{} {}", op, url.toString());
    Status s = withRetries(
        url,
        [&](bool& retryable) {
            Response resp;
            Status t = perform(method, endpoint(url, op, extra), {}, resp, nullptr, cb);
            if (!t) {
                retryable = resp.retryable;
                return t;
            }
            if (resp.code != 200) return httpErrorStatus(resp.code, resp.body, what, retryable);
            out = std::move(resp.body);
            return Status::ok();
        },
        cb);
    if (!s) return s;
    return out;
}

Result<HdfsFileStatus> WebHdfsClient::getFileStatus(const HdfsUrl& url,
                                                    const ProgressCallback& cb) {
    XT_ASSIGN_OR_RETURN(const std::string body, jsonRequest("GET", url, "GETFILESTATUS", {}, cb));
    return parseFileStatusResponse(body, fmt::format("GETFILESTATUS {}", url.toString()));
}

Result<std::vector<HdfsFileStatus>> WebHdfsClient::listStatus(const HdfsUrl& url,
                                                              const ProgressCallback& cb) {
    XT_ASSIGN_OR_RETURN(const std::string body, jsonRequest("GET", url, "LISTSTATUS", {}, cb));
    return parseListStatusResponse(body, fmt::format("LISTSTATUS {}", url.toString()));
}

Status WebHdfsClient::read(const HdfsUrl& url, std::uint64_t offset, std::uint64_t length,
                           const ByteSink& sink, const ProgressCallback& cb) {
    std::uint64_t pos = offset;
    std::uint64_t remaining = length;
    std::uint64_t done = 0;
    std::string what = fmt::format("OPEN {}", url.toString());
    ByteSink counting = [&](const char* d, std::size_t n) -> Status {
        std::size_t take = remaining == kToEnd
                               ? n
                               : static_cast<std::size_t>(std::min<std::uint64_t>(n, remaining));
        XT_RETURN_IF_ERROR(sink(d, take));
        pos += take;
        done += take;
        if (remaining != kToEnd) remaining -= take;
        return Status::ok();
    };
    ProgressCallback progress;
    if (cb)
        progress = [&](const ProgressReport& r) {
            return cb(ProgressReport{done, length == kToEnd ? 0 : length, r.stage});
        };
    return withRetries(
        url,
        [&](bool& retryable) -> Status {
            if (remaining == 0) return Status::ok();
            std::string extra = fmt::format("offset={}", pos);
            if (remaining != kToEnd) extra += fmt::format("&length={}", remaining);
            Response resp;
            Status t = perform("GET", endpoint(url, "OPEN", extra), {}, resp, &counting, progress);
            if (!t) {
                retryable = resp.retryable;
                return t;
            }
            if (isRedirect(resp.code)) {
                XT_ASSIGN_OR_RETURN(const std::string loc,
                                    redirectTarget(resp.code, resp.location, what));
                t = perform("GET", loc, {}, resp, &counting, progress);
                if (!t) {
                    retryable = resp.retryable;
                    return t;
                }
            }
            if (resp.code != 200) return httpErrorStatus(resp.code, resp.body, what, retryable);
            return Status::ok();
        },
        cb);
}

Status WebHdfsClient::upload(const HdfsUrl& url, std::string_view op, std::string_view method,
                             std::string_view extra, std::string_view data,
                             const ProgressCallback& cb) {
    std::string what = fmt::format("{} {}", op, url.toString());
    const long okCode = op == "CREATE" ? 201 : 200;
    const bool idempotent =
        op == "CREATE" && extra.find("overwrite=true") != std::string_view::npos;
    const std::string m(method);
    return withRetries(
        url,
        [&](bool& retryable) -> Status {
            Response resp;
            if (m_settings.httpfs) {
                std::string e = extra.empty() ? "data=true" : fmt::format("{}&data=true", extra);
                Status t = perform(m, endpoint(url, op, e), data, resp, nullptr, cb);
                if (!t) {
                    retryable = resp.retryable && (idempotent || resp.code == 0);
                    return t;
                }
                if (resp.code != okCode && resp.code != 200 && resp.code != 201)
                    return httpErrorStatus(resp.code, resp.body, what, retryable);
                return Status::ok();
            }
            Status t = perform(m, endpoint(url, op, extra), {}, resp, nullptr, cb);
            if (!t) {
                retryable = resp.retryable;
                return t;
            }
            if (!isRedirect(resp.code)) {
                if ((resp.code == okCode || resp.code == 200 || resp.code == 201) && data.empty())
                    return Status::ok();
                return resp.code >= 300 || resp.code < 200
                           ? httpErrorStatus(resp.code, resp.body, what, retryable)
                           : Status(ErrorCode::IoError,
                                    fmt::format("{}: the namenode did not redirect to a datanode "
                                                "(HTTP {})",
                                                what, resp.code));
            }
            XT_ASSIGN_OR_RETURN(const std::string loc,
                                redirectTarget(resp.code, resp.location, what));
            t = perform(m, loc, data, resp, nullptr, cb);
            if (!t) {
                // Nothing reached the datanode when the connection never opened.
                retryable = resp.retryable && (idempotent || resp.code == 0) &&
                            (idempotent || t.message().find("onnect") != std::string::npos);
                if (!idempotent && !retryable)
                    return Status(ErrorCode::IoError,
                                  fmt::format("{}: the data transfer failed and the outcome is "
                                              "unknown, not retried: {}",
                                              what, t.message()));
                return t;
            }
            if (resp.code != okCode && resp.code != 200 && resp.code != 201) {
                Status e = httpErrorStatus(resp.code, resp.body, what, retryable);
                retryable = retryable && idempotent;
                return e;
            }
            return Status::ok();
        },
        cb);
}

Status WebHdfsClient::create(const HdfsUrl& url, std::string_view data, bool overwrite,
                             const ProgressCallback& cb) {
    return upload(url, "CREATE", "PUT", overwrite ? "overwrite=true" : "overwrite=false", data, cb);
}

Status WebHdfsClient::append(const HdfsUrl& url, std::string_view data,
                             const ProgressCallback& cb) {
    return upload(url, "APPEND", "POST", {}, data, cb);
}

Status WebHdfsClient::mkdirs(const HdfsUrl& url, const ProgressCallback& cb) {
    XT_ASSIGN_OR_RETURN(const std::string body, jsonRequest("PUT", url, "MKDIRS", {}, cb));
    XT_ASSIGN_OR_RETURN(const bool done,
                        parseBooleanResponse(body, fmt::format("MKDIRS {}", url.toString())));
    if (!done) return Status(ErrorCode::IoError, fmt::format("MKDIRS {}: refused", url.toString()));
    return Status::ok();
}

Status WebHdfsClient::replace(const HdfsUrl& url, std::string_view data,
                              const ProgressCallback& cb) {
    static std::atomic<std::uint64_t> counter{0};
    const auto slash = url.path.rfind('/');
    HdfsUrl tmp = url;
    tmp.path = fmt::format("{}/.{}.{}-{}-{}.tmp", url.path.substr(0, slash),
                           url.path.substr(slash + 1), ::getpid(), counter++,
                           std::chrono::steady_clock::now().time_since_epoch().count());
    XT_RETURN_IF_ERROR(create(tmp, data, true, cb));
    Status moved = rename(tmp, url, true, cb);
    if (!moved) (void)remove(tmp, false, cb);
    return moved;
}

Status WebHdfsClient::rename(const HdfsUrl& from, const HdfsUrl& to, bool overwrite,
                             const ProgressCallback& cb) {
    std::string extra = "destination=" + percentEncode(to.path, true);
    if (overwrite) extra += "&renameoptions=OVERWRITE";
    auto body = jsonRequest("PUT", from, "RENAME", extra, cb);
    if (!body) return body.status();
    const std::string what = fmt::format("RENAME {} to {}", from.toString(), to.path);
    auto done = parseBooleanResponse(*body, what);
    if (!done) return done.status();
    if (!*done)
        return Status(ErrorCode::IoError,
                      fmt::format("{}: refused (no such file, or the destination exists)", what));
    return Status::ok();
}

Status WebHdfsClient::remove(const HdfsUrl& url, bool recursive, const ProgressCallback& cb) {
    XT_ASSIGN_OR_RETURN(
        const std::string body,
        jsonRequest("DELETE", url, "DELETE", recursive ? "recursive=true" : "recursive=false", cb));
    XT_ASSIGN_OR_RETURN(const bool done,
                        parseBooleanResponse(body, fmt::format("DELETE {}", url.toString())));
    if (!done)
        return Status(ErrorCode::NotFound, fmt::format("DELETE {}: nothing there", url.toString()));
    return Status::ok();
}

} // namespace xt::storage
