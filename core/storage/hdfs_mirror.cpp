#include "core/storage/hdfs_mirror.h"

#include "core/base/fd_io.h"
#include "core/storage/mirror_syncer.h"
#include "core/xdl/run_discovery.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fnmatch.h>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace fs = std::filesystem;

namespace xt::storage {

namespace {

constexpr const char* kIndexName = "mirror-index.tsv";

class FileLock {
public:
    explicit FileLock(const std::string& path)
        : m_fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (ok()) ::flock(m_fd.get(), LOCK_EX);
    }
    bool ok() const { return m_fd.get() >= 0; }

private:
    UniqueFd m_fd; // closing it releases the lock
};

MirrorIndex loadIndex(const std::string& file) {
    MirrorIndex idx;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string rel;
        MirrorEntry e;
        if (std::getline(ls, rel, '\t') && (ls >> e.length >> e.mtime >> e.fileId >> e.lastUse)) {
            int sparse = 0;
            e.sparse = (ls >> sparse) && sparse == 1; // absent in indexes of whole copies only
            idx[rel] = e;
        }
    }
    return idx;
}

Status saveIndex(const std::string& file, const MirrorIndex& idx) {
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

// What a mirrored file takes on disk: its length, or the blocks a sparse copy has filled.
std::uint64_t diskBytes(const std::string& path, bool sparse) {
    struct stat sb {};
    if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    return sparse ? static_cast<std::uint64_t>(sb.st_blocks) * 512
                  : static_cast<std::uint64_t>(sb.st_size);
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
    std::vector<MirrorFile> files;
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
    MirrorIndex idx = loadIndex(m_options.cacheDir + "/" + kIndexName);
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

namespace {

// The namenode could not be reached: the existing local copy (if any) is used, its files kept
// as recently used.
Result<MirrorStatus> offlineCopy(const HdfsUrl& url, const Status& listed, MirrorStatus out,
                                 MirrorIndex& index, std::uint64_t use,
                                 const std::string& indexFile, FetchContext& fetch) {
    const std::string leaf = url.path.substr(url.path.rfind('/') + 1);
    std::string probe =
        hasGlob(leaf) ? fs::path(out.localPath).parent_path().string() : out.localPath;
    std::error_code ec;
    if (!fs::exists(probe, ec))
        return Status(ErrorCode::IoError,
                      fmt::format("{} (and no local copy in the mirror)", listed.message()));
    out.offline = true;
    out.offlineReason = listed.message();
    fetch.setOffline(listed.message());
    for (auto& [rel, e] : index)
        if (rel == relOf(url) || rel.rfind(relOf(url) + "/", 0) == 0) e.lastUse = use;
    XT_RETURN_IF_ERROR(saveIndex(indexFile, index));
    return out;
}

// Files deleted remotely leave the mirror (only after a complete listing of a directory).
void dropDeleted(const Listing& listing, const std::string& cacheDir, MirrorIndex& index,
                 MirrorStatus& out) {
    std::set<std::string> present;
    for (const auto& f : listing.files)
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

// Size limit: least recently used files first, never the ones used by this call (`use`).
void evictOverLimit(const std::string& cacheDir, std::uint64_t maxBytes, std::uint64_t use,
                    MirrorIndex& index, MirrorStatus& out) {
    std::uint64_t total = 0;
    std::vector<std::pair<std::uint64_t, std::string>> victims;
    for (const auto& [rel, e] : index) {
        total += diskBytes(cacheDir + "/" + rel, e.sparse);
        if (e.lastUse != use) victims.emplace_back(e.lastUse, rel);
    }
    std::sort(victims.begin(), victims.end());
    for (const auto& [lastUse, rel] : victims) {
        if (total <= maxBytes) break;
        total -= std::min(total, diskBytes(cacheDir + "/" + rel, index[rel].sparse));
        removeLocal(cacheDir, rel);
        index.erase(rel);
        ++out.filesEvicted;
    }
}

} // namespace

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
    MirrorIndex index = loadIndex(indexFile);
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
    if (!listed) {
        if (!unreachable(listed)) return listed;
        return offlineCopy(url, listed, std::move(out), index, use, indexFile, *m_fetch);
    }

    // 2. Fetch what changed.
    MirrorSyncer syncer(m_client, cacheDir, m_options.sparse, index, use, out, cb);
    Status failed = syncer.syncAll(listing.files);
    if (!failed.isOk() && !unreachable(failed)) {
        (void)saveIndex(indexFile, index); // keep what was fetched; the failure matters more
        return failed;
    }
    if (!failed.isOk()) {
        out.offline = true;
        out.offlineReason = failed.message();
        m_fetch->setOffline(failed.message());
    }

    // 3. Files deleted remotely leave the mirror; 4. the size limit.
    if (listing.dirRel && !out.offline) dropDeleted(listing, cacheDir, index, out);
    if (m_options.maxBytes > 0) evictOverLimit(cacheDir, m_options.maxBytes, use, index, out);
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
        xdl::RunFiles run{std::get<0>(key), std::get<1>(key), std::get<2>(key), {}, {}};
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
