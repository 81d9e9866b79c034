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
#include <tuple>
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
    bool sparse = false; // a sparse copy: its range map says which bytes are there
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
        if (std::getline(ls, rel, '\t') && (ls >> e.length >> e.mtime >> e.fileId >> e.lastUse)) {
            int sparse = 0;
            e.sparse = (ls >> sparse) && sparse == 1; // absent in indexes of whole copies only
            idx[rel] = e;
        }
    }
    return idx;
}

Status saveIndex(const std::string& file, const Index& idx) {
    std::string tmp = file + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        for (const auto& [rel, e] : idx)
            out << rel << '\t' << e.length << ' ' << e.mtime << ' ' << e.fileId << ' ' << e.lastUse
                << ' ' << (e.sparse ? 1 : 0) << '\n';
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

// What a mirrored file takes on disk: its length, or the blocks a sparse copy has filled.
std::uint64_t diskBytes(const std::string& path, bool sparse) {
    struct stat sb {};
    if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    return sparse ? static_cast<std::uint64_t>(sb.st_blocks) * 512
                  : static_cast<std::uint64_t>(sb.st_size);
}

// Local copies carry the remote modification time (milliseconds since the epoch).
void setMtime(int fd, std::int64_t ms) {
    const timespec times[2] = {
        {0, UTIME_OMIT}, {static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000}};
    ::futimens(fd, times);
}

void setMtime(const std::string& path, std::int64_t ms) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() >= 0) setMtime(fd.get(), ms);
}

// Drops a mirrored file and its range map.
void removeLocal(const std::string& cacheDir, const std::string& rel) {
    ::unlink((cacheDir + "/" + rel).c_str());
    ::unlink(rangeMapPath(cacheDir, rel).c_str());
}

// A listing entry name that stays inside its directory once joined to a local path.
bool safeName(const std::string& n) {
    return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos &&
           n.find('\0') == std::string::npos;
}

bool hasGlob(std::string_view s) {
    return s.find_first_of("*?[") != std::string_view::npos;
}

constexpr std::string_view kCompanions[] = {".meta", ".xts"}; // a data file's meta and summary

// Data files, their metas and summaries; other files in a run directory are not needed.
bool wantedName(const std::string& name) {
    std::string_view n = name;
    for (std::string_view suffix : kCompanions)
        if (n.size() > suffix.size() && n.ends_with(suffix)) {
            n.remove_suffix(suffix.size());
            break;
        }
    return xdl::parsePartFileName(n).has_value();
}

bool isDataName(const std::string& rel) {
    return xdl::parsePartFileName(rel.substr(rel.rfind('/') + 1)).has_value();
}

HdfsUrl child(const HdfsUrl& dir, const std::string& name) {
    HdfsUrl u = dir;
    u.path = dir.path == "/" ? "/" + name : dir.path + "/" + name;
    return u;
}

bool unreachable(const Status& s) {
    return s.code() == ErrorCode::IoError;
}

std::string relOf(const HdfsUrl& u) {
    return u.host + u.path;
}

// What mirror() fetches for `url`: the data files and metas under a directory (maxDepth levels
// down), the entries a glob in the last component matches (with their data files' metas and
// summaries), or one file with its meta and summary.
struct Listing {
    std::vector<RemoteFile> files;
    std::optional<std::string> dirRel; // set when a directory was listed: stale files go
    int dirDepth = 0;
};

Status listRemote(WebHdfsClient& client, const HdfsUrl& url, int maxDepth, Listing& out,
                  const ProgressCallback& cb) {
    auto& files = out.files;
    Status listed;
    auto listDir = [&](auto&& self, const HdfsUrl& dir, int depth) -> Status {
        auto entries = client.listStatus(dir, cb);
        if (!entries) return entries.status();
        for (const auto& e : *entries) {
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
        auto entries = client.listStatus(parent, cb);
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
                    listed = listDir(listDir, c, maxDepth - 1);
                    if (!listed) break;
                } else if (e.type == HdfsFileType::File) {
                    files.push_back({c, e, relOf(c)});
                    for (std::string_view suffix : kCompanions) { // the meta and summary go along
                        auto comp = byName.find(e.name + std::string(suffix));
                        if (comp != byName.end() && !matches(comp->first) &&
                            comp->second->type == HdfsFileType::File) {
                            HdfsUrl m = child(parent, comp->first);
                            files.push_back({m, *comp->second, relOf(m)});
                        }
                    }
                }
            }
        }
    } else {
        auto st = client.getFileStatus(url, cb);
        listed = st.status();
        if (st && st->type == HdfsFileType::Directory) {
            out.dirRel = relOf(url);
            out.dirDepth = maxDepth;
            listed = listDir(listDir, url, maxDepth);
        } else if (st) {
            files.push_back({url, *st, relOf(url)});
            for (std::string_view suffix : kCompanions) {
                HdfsUrl comp = url;
                comp.path += suffix;
                auto cs = client.getFileStatus(comp, cb);
                if (cs && cs->type == HdfsFileType::File)
                    files.push_back({comp, *cs, relOf(comp)});
                else if (!cs && cs.status().code() != ErrorCode::NotFound)
                    listed = cs.status();
            }
        }
    }
    return listed;
}

class Syncer {
public:
    Syncer(WebHdfsClient& client, const std::string& cacheDir, bool sparse, Index& index,
           std::uint64_t use, MirrorStatus& out, const ProgressCallback& cb)
        : m_client(client), m_cacheDir(cacheDir), m_sparse(sparse), m_index(index), m_use(use),
          m_out(out), m_cb(cb) {}

    // Whether `rel` is mirrored as a sparse copy.
    bool sparse(const std::string& rel) const { return m_sparse && isDataName(rel); }
    void expectBytes(std::uint64_t n) { m_total += n; } // for progress totals

    Status sync(const RemoteFile& rf) {
        std::string local = m_cacheDir + "/" + rf.rel;
        auto size = localSize(local);
        auto it = m_index.find(rf.rel);
        if (sparse(rf.rel)) return syncSparse(rf, local, size, it);
        if (size && it != m_index.end()) {
            const Entry& e = it->second;
            bool replaced = (e.fileId && rf.st.fileId && e.fileId != rf.st.fileId) ||
                            rf.st.length < *size || rf.st.modificationTime < e.mtime ||
                            e.sparse; // a sparse copy made whole
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
    void record(const RemoteFile& rf, const std::string& local, bool sparse = false) {
        Entry e;
        e.length = localSize(local).value_or(0);
        e.mtime = rf.st.modificationTime;
        e.fileId = rf.st.fileId;
        e.lastUse = m_use;
        e.sparse = sparse;
        if (!sparse) setMtime(local, rf.st.modificationTime); // a sparse copy's is set already
        m_index[rf.rel] = e;
    }

    // A sparse copy: created at the remote length, grown with it (its range map keeps what was
    // fetched), re-created when the remote file was replaced. No data byte is fetched here.
    Status syncSparse(const RemoteFile& rf, const std::string& local,
                      std::optional<std::uint64_t> size, Index::iterator it) {
        if (size && it != m_index.end()) {
            const Entry& e = it->second;
            bool replaced = (e.fileId && rf.st.fileId && e.fileId != rf.st.fileId) ||
                            rf.st.length < *size || rf.st.modificationTime < e.mtime;
            if (!replaced && !(e.fileId && rf.st.fileId) && rf.st.length > *size)
                XT_RETURN_IF_ERROR(checkTail(rf, local, *size, e.sparse, replaced));
            if (!replaced) {
                if (rf.st.length == *size && rf.st.modificationTime == e.mtime &&
                    rf.st.fileId == e.fileId && e.sparse) {
                    it->second.lastUse = m_use;
                    return Status::ok();
                }
                XT_RETURN_IF_ERROR(growSparse(rf, local, *size, e.sparse));
                if (rf.st.length > *size) {
                    ++m_out.filesAppended;
                    m_out.changedFiles.push_back(local);
                }
                record(rf, local, true);
                return Status::ok();
            }
            XT_RETURN_IF_ERROR(createSparse(rf, local));
            ++m_out.filesReplaced;
        } else {
            XT_RETURN_IF_ERROR(createSparse(rf, local));
            ++m_out.filesNew;
        }
        m_out.changedFiles.push_back(local);
        record(rf, local, true);
        return Status::ok();
    }

    Status createSparse(const RemoteFile& rf, const std::string& local) {
        std::error_code ec;
        fs::create_directories(fs::path(local).parent_path(), ec);
        fs::create_directories(m_cacheDir + "/.tmp", ec);
        std::string tmp =
            fmt::format("{}/.tmp/{}.{}", m_cacheDir, ::getpid(), std::random_device{}());
        struct stat st {};
        {
            Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
            if (fd.get() < 0) return errnoStatus("create " + tmp, errno);
            if (::ftruncate(fd.get(), static_cast<off_t>(rf.st.length)) != 0 ||
                ::fstat(fd.get(), &st) != 0) {
                Status s = errnoStatus("cannot size " + tmp, errno);
                ::unlink(tmp.c_str());
                return s;
            }
            setMtime(fd.get(), rf.st.modificationTime);
        }
        // Under the map's lock, so a fetcher of the old copy sees it replaced, never mixed.
        auto map = LockedRangeMap::open(rangeMapPath(m_cacheDir, rf.rel));
        Status s =
            map ? map->write(RangeMap{static_cast<std::uint64_t>(st.st_ino), {}}) : map.status();
        if (s.isOk() && ::rename(tmp.c_str(), local.c_str()) != 0)
            s = errnoStatus("rename to " + local, errno);
        if (!s.isOk()) ::unlink(tmp.c_str());
        return s;
    }

    // The copy takes the remote length; a whole copy (from a mirror that was not sparse) gets a
    // map saying all its old bytes are there.
    Status growSparse(const RemoteFile& rf, const std::string& local, std::uint64_t size,
                      bool wasSparse) {
        auto map = LockedRangeMap::open(rangeMapPath(m_cacheDir, rf.rel));
        if (!map) return map.status();
        Fd fd(::open(local.c_str(), O_RDWR | O_CLOEXEC));
        struct stat st {};
        if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) return errnoStatus("open " + local, errno);
        if (!wasSparse) {
            RangeMap whole{static_cast<std::uint64_t>(st.st_ino), {}};
            whole.ranges.add(0, size);
            XT_RETURN_IF_ERROR(map->write(whole));
        }
        if (rf.st.length > size && ::ftruncate(fd.get(), static_cast<off_t>(rf.st.length)) != 0)
            return errnoStatus("cannot grow " + local, errno);
        setMtime(fd.get(), rf.st.modificationTime);
        return Status::ok();
    }

    // Without inode ids a replaced file may look grown: when the copy holds its old tail, the
    // remote bytes there must still be the same.
    Status checkTail(const RemoteFile& rf, const std::string& local, std::uint64_t size,
                     bool wasSparse, bool& replaced) {
        std::size_t overlap = static_cast<std::size_t>(std::min<std::uint64_t>(size, kOverlap));
        if (overlap == 0) return Status::ok();
        if (wasSparse) {
            auto map = LockedRangeMap::open(rangeMapPath(m_cacheDir, rf.rel));
            if (!map) return map.status();
            if (!map->read().ranges.covers(size - overlap, size)) return Status::ok();
        }
        std::string tail(overlap, '\0'), remote;
        {
            Fd fd(::open(local.c_str(), O_RDONLY | O_CLOEXEC));
            if (fd.get() < 0 ||
                ::pread(fd.get(), tail.data(), overlap, static_cast<off_t>(size - overlap)) !=
                    static_cast<ssize_t>(overlap))
                return errnoStatus("read " + local, errno);
        }
        XT_RETURN_IF_ERROR(
            m_client.read(rf.url, size - overlap, overlap, [&](const char* d, std::size_t n) {
                remote.append(d, n);
                return Status::ok();
            }));
        replaced = remote != tail;
        return Status::ok();
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
        if (s.isOk()) ::unlink(rangeMapPath(m_cacheDir, rf.rel).c_str()); // of a sparse copy
        return s;
    }

    WebHdfsClient& m_client;
    const std::string& m_cacheDir;
    const bool m_sparse;
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
    : m_options(std::move(options)), m_client(m_options.webhdfs),
      m_fetch(std::make_shared<FetchContext>(m_options.webhdfs, m_options.blockBytes)) {
    if (m_options.cacheDir.empty()) m_options.cacheDir = defaultMirrorCacheDir();
}

std::string HdfsMirror::localPathFor(const HdfsUrl& url) const {
    return m_options.cacheDir + "/" + url.host + (url.path == "/" ? "" : url.path);
}

Result<std::uint64_t> HdfsMirror::cachedBytes() const {
    Index idx = loadIndex(m_options.cacheDir + "/" + kIndexName);
    std::uint64_t total = 0;
    for (const auto& [rel, e] : idx)
        total += diskBytes(m_options.cacheDir + "/" + rel, e.sparse);
    return total;
}

std::string HdfsMirror::urlOf(const std::string& localPath) const {
    std::lock_guard lock(m_rootsMutex);
    for (const auto& root : m_roots) {
        const std::string prefix = localPathFor(root);
        if (localPath.size() > prefix.size() && localPath.starts_with(prefix) &&
            localPath[prefix.size()] == '/') {
            HdfsUrl u = root;
            u.path = localPath.substr(prefix.size());
            return u.toString();
        }
    }
    return {};
}

namespace {
// Stands in for the fetcher of a sparse copy that could not be opened: its holes are never read.
struct UnavailableFetcher : RangeFetcher {
    Status why;
    explicit UnavailableFetcher(Status s) : why(std::move(s)) {}
    Status ensure(std::uint64_t, std::uint64_t) override { return why; }
};
} // namespace

Status HdfsMirror::attach(xdl::PartFile& part) const {
    const std::string url = urlOf(part.path);
    if (url.empty()) return Status::ok();
    part.source = url;
    if (!m_options.sparse) return Status::ok();
    auto parsed = parseHdfsUrl(url);
    Result<std::shared_ptr<SparseFetcher>> fetcher =
        parsed ? SparseFetcher::open(m_fetch, *parsed, part.path,
                                     rangeMapPath(m_options.cacheDir, parsed->host + parsed->path))
               : Result<std::shared_ptr<SparseFetcher>>(parsed.status());
    if (!fetcher) {
        Status why(fetcher.status().code(),
                   url + ": its mirror copy cannot be read: " + fetcher.status().message());
        part.fetcher = std::make_shared<UnavailableFetcher>(why);
        return why;
    }
    part.fetcher = std::move(*fetcher);
    return Status::ok();
}

std::string HdfsMirror::toUrls(std::string text) const {
    std::lock_guard lock(m_rootsMutex);
    for (const auto& root : m_roots) {
        const std::string from = localPathFor(root) + "/";
        const std::string to = root.toString(); // ends with the root path's "/"
        for (std::size_t at = text.find(from); at != std::string::npos;
             at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
    }
    return text;
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
    {
        HdfsUrl root = url;
        root.path = "/";
        std::lock_guard rootsLock(m_rootsMutex);
        std::erase_if(m_roots, [&](const HdfsUrl& r) { return r.host == root.host; });
        m_roots.insert(m_roots.begin(), root);
    }

    // 1. What is there remotely.
    Listing listing;
    Status listed = listRemote(m_client, url, m_options.maxDepth, listing, cb);
    const auto& files = listing.files;
    if (!listed) {
        if (!unreachable(listed)) return listed;
        const std::string leaf = url.path.substr(url.path.rfind('/') + 1);
        std::string probe =
            hasGlob(leaf) ? fs::path(out.localPath).parent_path().string() : out.localPath;
        if (!fs::exists(probe, ec))
            return Status(ErrorCode::IoError,
                          fmt::format("{} (and no local copy in the mirror)", listed.message()));
        out.offline = true;
        out.offlineReason = listed.message();
        m_fetch->setOffline(listed.message());
        for (auto& [rel, e] : index)
            if (rel == relOf(url) || rel.rfind(relOf(url) + "/", 0) == 0) e.lastUse = use;
        XT_RETURN_IF_ERROR(saveIndex(indexFile, index));
        return out;
    }

    // 2. Fetch what changed.
    Syncer syncer(m_client, cacheDir, m_options.sparse, index, use, out, cb);
    for (const auto& f : files) {
        auto size = localSize(cacheDir + "/" + f.rel);
        if (syncer.sparse(f.rel)) continue; // no data byte is fetched now
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
        m_fetch->setOffline(failed.message());
    }

    // 3. Files deleted remotely leave the mirror (only after a complete listing).
    if (listing.dirRel && !out.offline) {
        std::set<std::string> present;
        for (const auto& f : files)
            present.insert(f.rel);
        for (auto it = index.begin(); it != index.end();) {
            const std::string& rel = it->first;
            bool inside = rel.rfind(*listing.dirRel + "/", 0) == 0 &&
                          std::count(rel.begin() + static_cast<long>(listing.dirRel->size()) + 1,
                                     rel.end(), '/') <= listing.dirDepth;
            if (inside && !present.count(rel)) {
                removeLocal(cacheDir, rel);
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
            total += diskBytes(cacheDir + "/" + rel, e.sparse);
            if (e.lastUse != use) victims.emplace_back(e.lastUse, rel);
        }
        std::sort(victims.begin(), victims.end());
        for (const auto& [lastUse, rel] : victims) {
            if (total <= m_options.maxBytes) break;
            total -= std::min(total, diskBytes(cacheDir + "/" + rel, index[rel].sparse));
            removeLocal(cacheDir, rel);
            index.erase(rel);
            ++out.filesEvicted;
        }
    }
    XT_RETURN_IF_ERROR(saveIndex(indexFile, index));
    return out;
}

Result<std::vector<RemoteFileInfo>> HdfsMirror::list(std::string_view urlText,
                                                     const ProgressCallback& cb) {
    auto url = parseHdfsUrl(urlText);
    if (!url) return url.status();
    Listing listing;
    XT_RETURN_IF_ERROR(listRemote(m_client, *url, m_options.maxDepth, listing, cb));
    std::vector<RemoteFileInfo> out;
    for (const auto& f : listing.files)
        out.push_back({f.url.toString(), f.st.length});
    return out;
}

Result<std::vector<xdl::RunFiles>>
discoverRemoteRuns(std::string_view url, const MirrorOptions& options, const ProgressCallback& cb) {
    HdfsMirror mirror(options);
    auto files = mirror.list(url, cb);
    if (!files) return files.status();
    // (directory URL, prefix, name) -> rank -> index -> part, ordered as discoverRuns orders.
    std::map<std::tuple<std::string, std::string, std::string>,
             std::map<int, std::map<std::int64_t, xdl::PartFile>>>
        runs;
    for (const auto& f : *files) {
        const auto slash = f.url.rfind('/');
        auto name = xdl::parsePartFileName(std::string_view(f.url).substr(slash + 1));
        if (!name) continue; // a meta
        xdl::PartFile part;
        part.path = f.url;
        part.index = name->index;
        part.size = f.size;
        runs[{f.url.substr(0, slash), name->prefix, name->name}][name->rank][name->index] = part;
    }
    std::vector<xdl::RunFiles> out;
    for (auto& [key, ranks] : runs) {
        xdl::RunFiles run{std::get<0>(key), std::get<1>(key), std::get<2>(key), {}};
        for (auto& [rank, parts] : ranks) {
            xdl::RankFiles rf{rank, {}, {}};
            for (auto& [index, part] : parts)
                rf.parts.push_back(std::move(part));
            run.ranks.push_back(std::move(rf));
        }
        out.push_back(std::move(run));
    }
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

std::string remoteUrlOf(std::string_view localPath, const std::vector<MirrorStatus>& mirrored) {
    auto trimmed = [](std::string_view p) {
        while (p.size() > 1 && p.back() == '/')
            p.remove_suffix(1);
        return std::string(p);
    };
    auto parentOf = [](const std::string& p) {
        const auto slash = p.rfind('/');
        return slash == std::string::npos ? std::string()
                                          : p.substr(0, std::max<std::size_t>(slash, 1));
    };
    const std::string path = trimmed(localPath);
    for (const auto& st : mirrored) {
        auto url = parseHdfsUrl(st.url);
        if (!url) continue;
        // The mirrored entry itself, then the directory of a mirrored file or glob.
        std::string local = trimmed(st.localPath), remote = url->path;
        const std::string leaf = remote.substr(remote.rfind('/') + 1);
        const bool fileOrGlob = hasGlob(leaf) || xdl::parsePartFileName(leaf) ||
                                std::string_view(leaf).ends_with(".meta");
        for (int level = 0; level < (fileOrGlob ? 2 : 1); ++level) {
            if (!local.empty() && (path == local || path.starts_with(local + "/"))) {
                HdfsUrl out = *url;
                const std::string rest = path.substr(local.size());
                out.path = remote == "/" ? (rest.empty() ? "/" : rest) : remote + rest;
                return out.toString();
            }
            local = parentOf(local);
            remote = parentOf(remote);
        }
    }
    return {};
}

} // namespace xt::storage
