#pragma once
// Filling sparse mirror copies on demand. A remote data file is mirrored as a sparse local file
// of its full length; SparseFetcher::ensure() brings a byte range in with WebHDFS OPEN (offset
// and length), rounded out to whole blocks, fetching only the parts its range map lacks, and
// records them in the map (see range_map.h), so no byte is fetched twice, across restarts and
// processes. The file's modification time is kept (the remote one the mirror set), so a
// summary's identity check sees the remote file's. Offline, a range not fetched yet is an error
// naming the URL and the bytes.

#include "core/base/progress.h"
#include "core/base/range_fetcher.h"
#include "core/storage/range_map.h"
#include "core/storage/webhdfs_client.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xt::storage {

// What the fetchers of one mirror share: their clients, the offline state, counters, progress.
class FetchContext {
public:
    FetchContext(WebHdfsSettings settings, std::uint64_t blockBytes);

    std::uint64_t blockBytes() const { return m_blockBytes; }
    // Once offline (HDFS could not be reached), fetches fail at once with the reason, for
    // kOfflineRetry; the next one after that tries again.
    static constexpr std::chrono::seconds kOfflineRetry{30};
    void setOffline(const std::string& reason);
    bool offline(std::string* reason = nullptr) const;
    // Bytes fetched by range so far.
    std::uint64_t bytesFetched() const { return m_bytesFetched; }
    // Reports the bytes of running fetches; returning false cancels them. Unset: none.
    void setProgress(ProgressCallback cb);

private:
    friend class SparseFetcher;
    std::unique_ptr<WebHdfsClient> takeClient();
    void giveBack(std::unique_ptr<WebHdfsClient> client);
    bool report(std::uint64_t done, std::uint64_t total);

    const WebHdfsSettings m_settings;
    const std::uint64_t m_blockBytes;
    mutable std::mutex m_mutex; // guards everything below
    std::vector<std::unique_ptr<WebHdfsClient>> m_idle;
    bool m_offline = false;
    std::chrono::steady_clock::time_point m_offlineSince;
    std::string m_offlineReason;
    ProgressCallback m_progress;
    std::atomic<std::uint64_t> m_bytesFetched{0};
};

class SparseFetcher : public RangeFetcher {
public:
    // The fetcher of `localPath`, the sparse copy of `url` whose range map is `mapPath`, as the
    // copy is now (a later replacement of the copy makes ensure() fail rather than mix files).
    // A map that belongs to another inode (a stale one) is reset. No descriptor is kept open.
    static Result<std::shared_ptr<SparseFetcher>> open(std::shared_ptr<FetchContext> context,
                                                       HdfsUrl url, std::string localPath,
                                                       std::string mapPath);

    Status ensure(std::uint64_t offset, std::uint64_t length) override;
    // The ranges known to be fetched (this process's view).
    ByteRanges fetched() const;
    const HdfsUrl& url() const { return m_url; }

private:
    SparseFetcher(std::shared_ptr<FetchContext> context, HdfsUrl url, std::string localPath,
                  std::string mapPath, std::uint64_t inode);
    Status fetch(int fd, const LockedRangeMap& lock, RangeMap& map, std::uint64_t begin,
                 std::uint64_t end);

    std::shared_ptr<FetchContext> m_context;
    HdfsUrl m_url;
    std::string m_localPath, m_mapPath;
    std::uint64_t m_inode = 0;  // of the copy this fetcher fills
    mutable std::mutex m_mutex; // one ensure at a time; guards m_fetched
    ByteRanges m_fetched;
};

} // namespace xt::storage
