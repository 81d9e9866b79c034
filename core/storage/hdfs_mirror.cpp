#include "core/storage/hdfs_mirror.h"

#include "core/xdl/run_discovery.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fnmatch.h>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace xt::storage {

namespace {

constexpr std::size_t kOverlap = 4096; // old tail bytes re-read to prove a file only grew
constexpr const char* kIndexName = "mirror-index.tsv";

struct Entry {
    std::uint64_t length = 0;
    std::int64_t mtime = 0;
    std::int64_t fileId = 0;
    std::uint64_t lastUse = 0;
};
using Index = std::map<std::string, Entry>; // key: path relative to the cache directory

struct RemoteFile {
    HdfsUrl url;
    HdfsFileStatus st;
    std::string rel;
};

class FileLock {
public:
    explicit FileLock(const std::string& path) {
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd >= 0) ::flock(m_fd, LOCK_EX);
    }
    ~FileLock() {
        if (m_fd >= 0) ::close(m_fd); // closing releases the lock
    }
    bool ok() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

class Fd {
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() {
        if (m_fd >= 0) ::close(m_fd);
    }
    int get() const { return m_fd; }

private:
    int m_fd;
};

Status writeAll(int fd, const char* d, std::size_t n, const std::string& path) {
    while (n > 0) {
        ssize_t w = ::write(fd, d, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errnoStatus("write " + path, errno);
        }
        d += w, n -= static_cast<std::size_t>(w);
    }
    return Status::ok();
}

Index loadIndex(const std::string& file) {
    Index idx;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string rel;
        Entry e;
        if (std::getline(ls, rel, '\t') && (ls >> e.length >> e.mtime >> e.fileId >> e.lastUse))
            idx[rel] = e;
    }
    return idx;
}

Status saveIndex(const std::string& file, const Index& idx) {
    std::string tmp = file + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        for (const auto& [rel, e] : idx)
            out << rel << '\t' << e.length << ' ' << e.mtime << ' ' << e.fileId << ' ' << e.lastUse
                << '\n';
        out.flush();
        if (!out) return Status(ErrorCode::IoError, "cannot write the mirror index " + tmp);
    }
    if (::rename(tmp.c_str(), file.c_str()) != 0) return errnoStatus("rename " + tmp, errno);
    return Status::ok();
}

std::optional<std::uint64_t> localSize(const std::string& path) {
    struct stat sb {};
    if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(sb.st_size);
}

// A listing entry name that stays inside its directory once joined to a local path.
bool safeName(const std::string& n) {
    return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos &&
           n.find('\0') == std::string::npos;
}

bool hasGlob(std::string_view s) {
    return s.find_first_of("*?[") != std::string_view::npos;
}

// Data files and their metas; other files in a run directory are not needed.
bool wantedName(const std::string& name) {
    std::string_view n = name;
    if (n.size() > 5 && n.substr(n.size() - 5) == ".meta") n.remove_suffix(5);
    return xdl::parsePartFileName(n).has_value();
}

HdfsUrl child(const HdfsUrl& dir, const std::string& name) {
    HdfsUrl u = dir;
    u.path = dir.path == "/" ? "/" + name : dir.path + "/" + name;
    return u;
}

bool unreachable(const Status& s) {
    return s.code() == ErrorCode::IoError;
}

class Syncer {
public:
    Syncer(WebHdfsClient& client, const std::string& cacheDir, Index& index, std::uint64_t use,
           MirrorStatus& out, const ProgressCallback& cb)
        : m_client(client), m_cacheDir(cacheDir), m_index(index), m_use(use), m_out(out), m_cb(cb) {
    }

    void expectBytes(std::uint64_t n) { m_total += n; } // for progress totals

    Status sync(const RemoteFile& rf) {
        std::string local = m_cacheDir + "/" + rf.rel;
        auto size = localSize(local);
        auto it = m_index.find(rf.rel);
        if (size && it != m_index.end()) {
            const Entry& e = it->second;
            bool replaced = (e.fileId && rf.st.fileId && e.fileId != rf.st.fileId) ||
                            rf.st.length < *size || rf.st.modificationTime < e.mtime;
            if (!replaced) {
                if (rf.st.length == *size && rf.st.modificationTime == e.mtime &&
                    rf.st.fileId == e.fileId) {
                    it->second.lastUse = m_use;
                    return Status::ok();
                }
                bool mismatch = false;
                XT_RETURN_IF_ERROR(fetchAppended(rf, local, *size, mismatch));
                if (!mismatch) {
                    if (rf.st.length > *size) {
                        ++m_out.filesAppended;
                        m_out.changedFiles.push_back(local);
                    }
                    record(rf, local);
                    return Status::ok();
                }
            }
            XT_RETURN_IF_ERROR(fetchWhole(rf, local));
            ++m_out.filesReplaced;
        } else {
            XT_RETURN_IF_ERROR(fetchWhole(rf, local));
            ++m_out.filesNew;
        }
        m_out.changedFiles.push_back(local);
        record(rf, local);
        return Status::ok();
    }

private:
    void record(const RemoteFile& rf, const std::string& local) {
        Entry e;
        e.length = localSize(local).value_or(0);
        e.mtime = rf.st.modificationTime;
        e.fileId = rf.st.fileId;
        e.lastUse = m_use;
        m_index[rf.rel] = e;
    }

    ProgressCallback progress() {
        if (!m_cb) return {};
        std::uint64_t base = m_done;
        return [this, base](const ProgressReport& r) {
            return m_cb(ProgressReport{base + r.done, m_total, "downloading from HDFS"});
        };
    }

    Status fetchAppended(const RemoteFile& rf, const std::string& local, std::uint64_t size,
                         bool& mismatch) {
        std::size_t overlap = static_cast<std::size_t>(std::min<std::uint64_t>(size, kOverlap));
        if (overlap == 0 && rf.st.length == size) return Status::ok();
        std::string tail(overlap, '\0');
        Fd fd(::open(local.c_str(), O_RDWR | O_CLOEXEC));
        if (fd.get() < 0) return errnoStatus("open " + local, errno);
        if (overlap && ::pread(fd.get(), tail.data(), overlap,
                               static_cast<off_t>(size - overlap)) != static_cast<ssize_t>(overlap))
            return errnoStatus("read " + local, errno);
        if (::lseek(fd.get(), static_cast<off_t>(size), SEEK_SET) < 0)
            return errnoStatus("seek " + local, errno);
        std::size_t compared = 0;
        ByteSink sink = [&](const char* d, std::size_t n) -> Status {
            std::size_t c = std::min(n, overlap - compared);
            if (c && std::memcmp(d, tail.data() + compared, c) != 0) {
                mismatch = true;
                return Status(ErrorCode::Corrupt, "the old tail differs");
            }
            compared += c;
            m_out.bytesFetched += n - c;
            m_done += n - c;
            return writeAll(fd.get(), d + c, n - c, local);
        };
        Status s =
            m_client.read(rf.url, size - overlap, rf.st.length - size + overlap, sink, progress());
        if (mismatch) return Status::ok();
        return s;
    }

    Status fetchWhole(const RemoteFile& rf, const std::string& local) {
        std::error_code ec;
        fs::create_directories(fs::path(local).parent_path(), ec);
        fs::create_directories(m_cacheDir + "/.tmp", ec);
        std::string tmp =
            fmt::format("{}/.tmp/{}.{}", m_cacheDir, ::getpid(), std::random_device{}());
        Status s;
        {
            Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
            if (fd.get() < 0) return errnoStatus("create " + tmp, errno);
            if (rf.st.length > 0) {
                ByteSink sink = [&](const char* d, std::size_t n) -> Status {
                    m_out.bytesFetched += n;
                    m_done += n;
                    return writeAll(fd.get(), d, n, tmp);
                };
                s = m_client.read(rf.url, 0, rf.st.length, sink, progress());
            }
        }
        if (s.isOk() && ::rename(tmp.c_str(), local.c_str()) != 0)
            s = errnoStatus("rename to " + local, errno);
        if (!s.isOk()) ::unlink(tmp.c_str());
        return s;
    }

    WebHdfsClient& m_client;
    const std::string& m_cacheDir;
    Index& m_index;
    std::uint64_t m_use;
    MirrorStatus& m_out;
    const ProgressCallback& m_cb;
    std::uint64_t m_done = 0;
    std::uint64_t m_total = 0;
};

} // namespace

std::string defaultMirrorCacheDir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/xtview/hdfs";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : "/tmp") + "/.cache/xtview/hdfs";
}

MirrorOptions mirrorOptionsFromEnvironment() {
    MirrorOptions o;
    o.webhdfs = webHdfsSettingsFromEnvironment();
    if (const char* d = std::getenv("XT_HDFS_CACHE_DIR"); d && *d) o.cacheDir = d;
    if (const char* m = std::getenv("XT_HDFS_CACHE_MAX_MB"); m && *m)
        o.maxBytes = std::strtoull(m, nullptr, 10) * 1000 * 1000;
    return o;
}

HdfsMirror::HdfsMirror(MirrorOptions options)
    : m_options(std::move(options)), m_client(m_options.webhdfs) {
    if (m_options.cacheDir.empty()) m_options.cacheDir = defaultMirrorCacheDir();
}

std::string HdfsMirror::localPathFor(const HdfsUrl& url) const {
    return m_options.cacheDir + "/" + url.host + (url.path == "/" ? "" : url.path);
}

Result<std::uint64_t> HdfsMirror::cachedBytes() const {
    Index idx = loadIndex(m_options.cacheDir + "/" + kIndexName);
    std::uint64_t total = 0;
    for (const auto& [rel, e] : idx)
        total += localSize(m_options.cacheDir + "/" + rel).value_or(0);
    return total;
}

Result<MirrorStatus> HdfsMirror::mirror(std::string_view urlText, const ProgressCallback& cb) {
    XT_ASSIGN_OR_RETURN(const HdfsUrl url, parseHdfsUrl(urlText));
    const std::string& cacheDir = m_options.cacheDir;
    std::error_code ec;
    fs::create_directories(cacheDir, ec);
    if (ec)
        return Status(ErrorCode::IoError,
                      fmt::format("cannot create the HDFS mirror {}: {}", cacheDir, ec.message()));
    FileLock lock(cacheDir + "/.lock");
    if (!lock.ok()) return errnoStatus("lock " + cacheDir + "/.lock", errno);
    const std::string indexFile = cacheDir + "/" + kIndexName;
    Index index = loadIndex(indexFile);
    std::uint64_t use = 1;
    for (const auto& [rel, e] : index)
        use = std::max(use, e.lastUse + 1);

    MirrorStatus out;
    out.url = url.toString();
    out.localPath = localPathFor(url);
    auto relOf = [&](const HdfsUrl& u) { return u.host + u.path; };

    // 1. What is there remotely.
    std::vector<RemoteFile> files;
    std::optional<std::string> dirRel; // set when a directory was listed: stale files go
    int dirDepth = 0;
    Status listed;
    auto listDir = [&](auto&& self, const HdfsUrl& dir, int depth) -> Status {
        XT_ASSIGN_OR_RETURN(const auto entries, m_client.listStatus(dir, cb));
        for (const auto& e : entries) {
            if (!safeName(e.name)) continue;
            HdfsUrl c = child(dir, e.name);
            if (e.type == HdfsFileType::Directory && depth > 0) {
                XT_RETURN_IF_ERROR(self(self, c, depth - 1));
            } else if (e.type == HdfsFileType::File && wantedName(e.name) &&
                       relOf(c).find_first_of("\t\n") == std::string::npos) {
                files.push_back({c, e, relOf(c)});
            }
        }
        return Status::ok();
    };
    std::string leaf = url.path.substr(url.path.rfind('/') + 1);
    if (hasGlob(leaf)) {
        HdfsUrl parent = url;
        parent.path = url.path.substr(0, std::max<std::size_t>(1, url.path.rfind('/')));
        auto entries = m_client.listStatus(parent, cb);
        listed = entries.status();
        if (entries) {
            std::map<std::string, const HdfsFileStatus*> byName;
            for (const auto& e : *entries)
                byName[e.name] = &e;
            auto matches = [&](const std::string& n) {
                return ::fnmatch(leaf.c_str(), n.c_str(), FNM_PERIOD) == 0;
            };
            for (const auto& e : *entries) {
                if (!safeName(e.name) || !matches(e.name)) continue;
                HdfsUrl c = child(parent, e.name);
                if (e.type == HdfsFileType::Directory) {
                    listed = listDir(listDir, c, m_options.maxDepth - 1);
                    if (!listed) break;
                } else if (e.type == HdfsFileType::File) {
                    files.push_back({c, e, relOf(c)});
                    auto meta = byName.find(e.name + ".meta"); // the data file's meta goes along
                    if (meta != byName.end() && !matches(meta->first) &&
                        meta->second->type == HdfsFileType::File) {
                        HdfsUrl m = child(parent, meta->first);
                        files.push_back({m, *meta->second, relOf(m)});
                    }
                }
            }
        }
    } else {
        auto st = m_client.getFileStatus(url, cb);
        listed = st.status();
        if (st && st->type == HdfsFileType::Directory) {
            dirRel = relOf(url);
            dirDepth = m_options.maxDepth;
            listed = listDir(listDir, url, m_options.maxDepth);
        } else if (st) {
            files.push_back({url, *st, relOf(url)});
            HdfsUrl meta = url;
            meta.path += ".meta";
            auto ms = m_client.getFileStatus(meta, cb);
            if (ms && ms->type == HdfsFileType::File)
                files.push_back({meta, *ms, relOf(meta)});
            else if (!ms && ms.status().code() != ErrorCode::NotFound)
                listed = ms.status();
        }
    }
    if (!listed) {
        if (!unreachable(listed)) return listed;
        std::string probe =
            hasGlob(leaf) ? fs::path(out.localPath).parent_path().string() : out.localPath;
        if (!fs::exists(probe, ec))
            return Status(ErrorCode::IoError,
                          fmt::format("{} (and no local copy in the mirror)", listed.message()));
        out.offline = true;
        out.offlineReason = listed.message();
        for (auto& [rel, e] : index)
            if (rel == relOf(url) || rel.rfind(relOf(url) + "/", 0) == 0) e.lastUse = use;
        XT_RETURN_IF_ERROR(saveIndex(indexFile, index));
        return out;
    }

    // 2. Fetch what changed.
    Syncer syncer(m_client, cacheDir, index, use, out, cb);
    for (const auto& f : files) {
        auto size = localSize(cacheDir + "/" + f.rel);
        if (!size || f.st.length < *size)
            syncer.expectBytes(f.st.length); // new or shrunk: fetched whole
        else
            syncer.expectBytes(f.st.length - *size);
    }
    Status failed;
    for (const auto& f : files) {
        Status s = syncer.sync(f);
        if (s.isOk() || s.code() == ErrorCode::NotFound) continue; // NotFound: deleted meanwhile
        failed = s;
        break;
    }
    if (!failed.isOk() && !unreachable(failed)) {
        (void)saveIndex(indexFile, index); // keep what was fetched; the failure matters more
        return failed;
    }
    if (!failed.isOk()) {
        out.offline = true;
        out.offlineReason = failed.message();
    }

    // 3. Files deleted remotely leave the mirror (only after a complete listing).
    if (dirRel && !out.offline) {
        std::set<std::string> present;
        for (const auto& f : files)
            present.insert(f.rel);
        for (auto it = index.begin(); it != index.end();) {
            const std::string& rel = it->first;
            bool inside = rel.rfind(*dirRel + "/", 0) == 0 &&
                          std::count(rel.begin() + static_cast<long>(dirRel->size()) + 1, rel.end(),
                                     '/') <= dirDepth;
            if (inside && !present.count(rel)) {
                ::unlink((cacheDir + "/" + rel).c_str());
                ++out.filesRemoved;
                it = index.erase(it);
            } else {
                ++it;
            }
        }
    }

    // 4. Size limit: least recently used files first, never the ones used by this call.
    if (m_options.maxBytes > 0) {
        std::uint64_t total = 0;
        std::vector<std::pair<std::uint64_t, std::string>> victims;
        for (const auto& [rel, e] : index) {
            total += localSize(cacheDir + "/" + rel).value_or(0);
            if (e.lastUse != use) victims.emplace_back(e.lastUse, rel);
        }
        std::sort(victims.begin(), victims.end());
        for (const auto& [lastUse, rel] : victims) {
            if (total <= m_options.maxBytes) break;
            std::string path = cacheDir + "/" + rel;
            total -= std::min(total, localSize(path).value_or(0));
            ::unlink(path.c_str());
            index.erase(rel);
            ++out.filesEvicted;
        }
    }
    XT_RETURN_IF_ERROR(saveIndex(indexFile, index));
    return out;
}

Result<std::vector<std::string>> mirrorPaths(const std::vector<std::string>& paths,
                                             const MirrorOptions& options,
                                             const ProgressCallback& cb,
                                             std::vector<MirrorStatus>* statuses) {
    std::vector<std::string> out;
    std::optional<HdfsMirror> mirror;
    for (const auto& p : paths) {
        if (!isHdfsUrl(p)) {
            out.push_back(p);
            continue;
        }
        if (!mirror) mirror.emplace(options);
        XT_ASSIGN_OR_RETURN(MirrorStatus st, mirror->mirror(p, cb));
        out.push_back(st.localPath);
        if (statuses) statuses->push_back(std::move(st));
    }
    return out;
}

} // namespace xt::storage
