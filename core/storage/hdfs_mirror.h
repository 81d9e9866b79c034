#pragma once
// A local mirror of runs stored on HDFS, so the rest of core reads local files.
// `hdfs://host:port/dir` is mirrored to `<cacheDir>/<host>/dir`: part metas and summaries
// (`{part}.xts`) whole, data files whole or, in sparse mode, as sparse files of the remote length
// whose bytes are fetched by range when a reader asks (attach(), sparse_fetcher.h). HDFS files are
// append-only: a refresh takes only what was appended (a whole copy fetches the new bytes,
// checking that the old tail still matches; a sparse one just grows), re-creates files that were
// replaced (new inode id, shorter, older, or a tail that differs), picks up new files and drops
// local copies of files deleted remotely. Local files carry the remote modification time.
// When the namenode cannot be reached, the existing local copy is used and reported offline.
// A size limit evicts the least recently used files. Processes share a cache through a lock file.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/storage/sparse_fetcher.h"
#include "core/storage/webhdfs_client.h"
#include "core/xdl/run_discovery.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace xt::storage {

struct MirrorOptions {
    WebHdfsSettings webhdfs;
    std::string cacheDir;                                // empty: defaultMirrorCacheDir()
    std::uint64_t maxBytes = 50ull * 1000 * 1000 * 1000; // LRU eviction above this; 0: no limit
    int maxDepth = 2; // directory levels mirrored below a directory URL (runs sit in subdirs)
    // Data files as sparse copies fetched by range on demand (see HdfsMirror::attach).
    bool sparse = false;
    std::uint64_t blockBytes = 64 << 10; // sparse copies are fetched in whole blocks of this size
};

// $XDG_CACHE_HOME/xtview/hdfs, else $HOME/.cache/xtview/hdfs.
std::string defaultMirrorCacheDir();
// webHdfsSettingsFromEnvironment() plus XT_HDFS_CACHE_DIR and XT_HDFS_CACHE_MAX_MB (0: no limit).
MirrorOptions mirrorOptionsFromEnvironment();

struct MirrorStatus {
    std::string url;
    std::string localPath; // what to hand to local readers (a file, directory or glob)
    bool offline = false;  // the namenode could not be reached; the local copy may be stale
    std::string offlineReason;
    std::uint64_t bytesFetched = 0;
    std::uint64_t filesNew = 0;            // downloaded whole for the first time
    std::uint64_t filesAppended = 0;       // grew: only the appended bytes were fetched
    std::uint64_t filesReplaced = 0;       // changed otherwise: downloaded whole again
    std::uint64_t filesRemoved = 0;        // deleted remotely, so dropped locally
    std::uint64_t filesEvicted = 0;        // dropped by the size limit
    std::vector<std::string> changedFiles; // local paths new or grown in this call
};

struct RemoteFileInfo {
    std::string url; // hdfs://host[:port]/path (the scheme of the URL it was listed from)
    std::uint64_t size = 0;
};

class HdfsMirror {
public:
    explicit HdfsMirror(MirrorOptions options);

    // Brings the local copy of `url` (a file, a directory, or a glob in the last component) up to
    // date. NotFound when the URL does not exist; IoError when the namenode is unreachable and
    // there is no local copy; Cancelled from the callback (the local copy stays consistent).
    Result<MirrorStatus> mirror(std::string_view url, const ProgressCallback& cb = {});
    // Polling step for a live run: the same as mirror(); changedFiles lists what grew or appeared.
    Result<MirrorStatus> refresh(std::string_view url, const ProgressCallback& cb = {}) {
        return mirror(url, cb);
    }

    // The data files and metas that mirror(url) would fetch, listed without fetching anything
    // or touching the cache. Errors as mirror()'s, without the offline fallback.
    Result<std::vector<RemoteFileInfo>> list(std::string_view url, const ProgressCallback& cb = {});

    // Where `url` lives in the cache (whether or not it was mirrored yet).
    std::string localPathFor(const HdfsUrl& url) const;
    // The URL of a local path below what this object mirrored; "" for any other path.
    std::string urlOf(const std::string& localPath) const;
    // `text` with the paths of mirror copies written as their URLs (for what users read).
    std::string toUrls(std::string text) const;
    // Gives a part file in the mirror its URL (PartFile::source) and, in sparse mode, a fetcher
    // for its bytes (one that always fails, with the reason returned, when the copy cannot be
    // opened: its holes are never read). Nothing for a path this object did not mirror.
    Status attach(xdl::PartFile& part) const;
    // Bytes fetched by range for attached parts so far; what they share (offline state, progress).
    const std::shared_ptr<FetchContext>& fetchContext() const { return m_fetch; }
    // Bytes of mirrored files currently in the cache.
    Result<std::uint64_t> cachedBytes() const;
    const MirrorOptions& options() const { return m_options; }
    WebHdfsClient& client() { return m_client; }

private:
    MirrorOptions m_options;
    WebHdfsClient m_client;
    std::shared_ptr<FetchContext> m_fetch;
    mutable std::mutex m_rootsMutex; // attach() may run beside a refresh (MirrorPoller)
    std::vector<HdfsUrl> m_roots;    // the hosts mirrored (path "/"), latest first
};

// Mirrors every hdfs:// / webhdfs:// / swebhdfs:// entry of `paths` and returns the list with
// those entries replaced by their local mirror paths (other paths unchanged). `statuses`, when
// given, receives one MirrorStatus per URL (offline state included).
Result<std::vector<std::string>> mirrorPaths(const std::vector<std::string>& paths,
                                             const MirrorOptions& options,
                                             const ProgressCallback& cb = {},
                                             std::vector<MirrorStatus>* statuses = nullptr);

// The URL a local path inside a mirror came from (`hdfs://nn:8020/exp/run` for
// `<cache>/nn/exp/run`), given the statuses mirrorPaths returned; "" when the path is not in any
// of them. The path may be below a mirrored directory, or next to a mirrored file or glob.
std::string remoteUrlOf(std::string_view localPath, const std::vector<MirrorStatus>& mirrored);

// The runs under `url` as xdl::discoverRuns finds them in a local directory, from a listing
// alone (HdfsMirror::list): part paths are URLs, metas are not read (MetaState::Missing). For
// planning work on parts that others will read (one task per part).
Result<std::vector<xdl::RunFiles>> discoverRemoteRuns(std::string_view url,
                                                      const MirrorOptions& options,
                                                      const ProgressCallback& cb = {});

} // namespace xt::storage
