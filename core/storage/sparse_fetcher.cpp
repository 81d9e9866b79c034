#include "core/storage/sparse_fetcher.h"

#include "core/base/fd_io.h"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xt::storage {

namespace {
// Fetched bytes are recorded in the map at least this often, so a dropped or cancelled stream
// keeps what it brought in.
constexpr std::uint64_t kRecordEvery = 8ull << 20;
} // namespace

// ---- FetchContext ----

FetchContext::FetchContext(WebHdfsSettings settings, std::uint64_t blockBytes)
    : m_settings(std::move(settings)), m_blockBytes(std::max<std::uint64_t>(1, blockBytes)) {}

void FetchContext::setOffline(const std::string& reason) {
    std::lock_guard lock(m_mutex);
    m_offline = true;
    m_offlineSince = std::chrono::steady_clock::now();
    m_offlineReason = reason;
}

bool FetchContext::offline(std::string* reason) const {
    std::lock_guard lock(m_mutex);
    if (reason) *reason = m_offlineReason;
    return m_offline && std::chrono::steady_clock::now() - m_offlineSince < kOfflineRetry;
}

void FetchContext::setProgress(ProgressCallback cb) {
    std::lock_guard lock(m_mutex);
    m_progress = std::move(cb);
}

std::unique_ptr<WebHdfsClient> FetchContext::takeClient() {
    std::lock_guard lock(m_mutex);
    if (m_idle.empty()) return std::make_unique<WebHdfsClient>(m_settings);
    auto c = std::move(m_idle.back());
    m_idle.pop_back();
    return c;
}

void FetchContext::giveBack(std::unique_ptr<WebHdfsClient> client) {
    std::lock_guard lock(m_mutex);
    m_idle.push_back(std::move(client));
}

bool FetchContext::report(std::uint64_t done, std::uint64_t total) {
    std::lock_guard lock(m_mutex);
    return !m_progress || m_progress(ProgressReport{done, total, "fetching from HDFS"});
}

// ---- SparseFetcher ----

SparseFetcher::SparseFetcher(std::shared_ptr<FetchContext> context, HdfsUrl url,
                             std::string localPath, std::string mapPath, std::uint64_t inode)
    : m_context(std::move(context)), m_url(std::move(url)), m_localPath(std::move(localPath)),
      m_mapPath(std::move(mapPath)), m_inode(inode) {}

Result<std::shared_ptr<SparseFetcher>> SparseFetcher::open(std::shared_ptr<FetchContext> context,
                                                           HdfsUrl url, std::string localPath,
                                                           std::string mapPath) {
    // The copy is looked at under the map's lock: the mirror replaces copies under it too.
    auto lock = LockedRangeMap::open(mapPath);
    if (!lock) return lock.status();
    struct stat st {};
    if (::stat(localPath.c_str(), &st) != 0) return errnoStatus("cannot stat " + localPath, errno);
    std::shared_ptr<SparseFetcher> f(new SparseFetcher(std::move(context), std::move(url),
                                                       std::move(localPath), std::move(mapPath),
                                                       static_cast<std::uint64_t>(st.st_ino)));
    RangeMap map = lock->read();
    if (map.inode != f->m_inode) {
        map = RangeMap{f->m_inode, {}};
        XT_RETURN_IF_ERROR(lock->write(map));
    }
    f->m_fetched = std::move(map.ranges);
    return f;
}

ByteRanges SparseFetcher::fetched() const {
    std::lock_guard lock(m_mutex);
    return m_fetched;
}

Status SparseFetcher::ensure(std::uint64_t offset, std::uint64_t length) {
    std::lock_guard guard(m_mutex);
    const std::uint64_t want = length > UINT64_MAX - offset ? UINT64_MAX : offset + length;
    if (offset >= want || m_fetched.covers(offset, want)) return Status::ok();

    auto lock = LockedRangeMap::open(m_mapPath);
    if (!lock) return lock.status();
    auto replaced = [&] {
        return Status(ErrorCode::IoError,
                      fmt::format("{}: its mirror copy {} was replaced or removed since the run "
                                  "was opened (the remote file changed, or the cache was "
                                  "trimmed); open the run again",
                                  m_url.toString(), m_localPath));
    };
    UniqueFd fd(::open(m_localPath.c_str(), O_RDWR | O_CLOEXEC));
    struct stat st {};
    if (fd.get() < 0 && errno == ENOENT) return replaced();
    if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0)
        return errnoStatus("cannot open " + m_localPath, errno);
    RangeMap map = lock->read();
    if (static_cast<std::uint64_t>(st.st_ino) != m_inode || (map.inode != m_inode && map.inode))
        return replaced();
    map.inode = m_inode;
    map.ranges.add(m_fetched);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    const std::uint64_t end = std::min(want, size);
    const std::uint64_t block = m_context->blockBytes();
    std::vector<ByteRanges::Range> missing;
    if (offset < end)
        missing = map.ranges.missing(offset / block * block,
                                     std::min(size, (end + block - 1) / block * block));
    Status result;
    if (!missing.empty()) {
        std::string reason;
        if (m_context->offline(&reason))
            return Status(ErrorCode::IoError,
                          fmt::format("{}: bytes {}..{} are not in the local mirror {} and HDFS "
                                      "cannot be reached ({})",
                                      m_url.toString(), missing.front().first,
                                      missing.front().second, m_localPath, reason));
        for (const auto& [b, e] : missing) {
            result = fetch(fd.get(), *lock, map, b, e);
            if (!result) break;
        }
        // Writing moved the modification time (the mirror sets it under the lock held here): it
        // stays the remote file's.
        const timespec times[2] = {{0, UTIME_OMIT}, st.st_mtim};
        ::futimens(fd.get(), times);
    }
    Status saved = lock->write(map);
    m_fetched = std::move(map.ranges);
    return result ? saved : result;
}

Status SparseFetcher::fetch(int fd, const LockedRangeMap& lock, RangeMap& map, std::uint64_t begin,
                            std::uint64_t end) {
    std::uint64_t pos = begin, recorded = begin;
    ByteSink sink = [&](const char* d, std::size_t n) -> Status {
        while (n > 0) {
            const ssize_t w = ::pwrite(fd, d, n, static_cast<off_t>(pos));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return errnoStatus("cannot write " + m_localPath, errno);
            d += w, n -= static_cast<std::size_t>(w), pos += static_cast<std::uint64_t>(w);
        }
        if (pos - recorded >= kRecordEvery) {
            map.ranges.add(recorded, pos);
            recorded = pos;
            XT_RETURN_IF_ERROR(lock.write(map));
        }
        return Status::ok();
    };
    ProgressCallback progress = [&](const ProgressReport& r) {
        return m_context->report(r.done, end - begin);
    };
    auto client = m_context->takeClient();
    Status st = client->read(m_url, begin, end - begin, sink, progress);
    // Only a server that cannot be reached puts the mirror offline; one that answered with an
    // error or dropped a transfer (after the client's retries) fails this fetch alone.
    const bool unreachable = !st && client->unreachable();
    m_context->giveBack(std::move(client));
    map.ranges.add(recorded, pos);
    m_context->m_bytesFetched += pos - begin;
    if (!st) {
        if (unreachable) m_context->setOffline(st.message());
        if (st.code() == ErrorCode::Cancelled) return st;
        return Status(st.code(), fmt::format("{}: bytes {}..{} could not be fetched: {}",
                                             m_url.toString(), pos, end, st.message()));
    }
    if (pos < end)
        return Status(ErrorCode::IoError,
                      fmt::format("{}: the remote file ends at byte {}, before {} (it was replaced "
                                  "or truncated); open the run again",
                                  m_url.toString(), pos, end));
    return Status::ok();
}

} // namespace xt::storage
