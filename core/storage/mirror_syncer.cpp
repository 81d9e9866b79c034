#include "core/storage/mirror_syncer.h"

#include "core/base/fd_io.h"
#include "core/storage/sparse_fetcher.h"
#include "core/xdl/run_discovery.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace xt::storage {

namespace {

constexpr std::size_t kOverlap = 4096; // old tail bytes re-read to prove a file only grew

std::optional<std::uint64_t> localSize(const std::string& path) {
    struct stat sb {};
    if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(sb.st_size);
}

// Local copies carry the remote modification time (milliseconds since the epoch).
void setMtime(int fd, std::int64_t ms) {
    const timespec times[2] = {
        {0, UTIME_OMIT}, {static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000}};
    ::futimens(fd, times);
}

void setMtime(const std::string& path, std::int64_t ms) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() >= 0) setMtime(fd.get(), ms);
}

// The tail.size() bytes of `local` (open as fd) that end at `size`: the old tail to compare.
Status readTail(int fd, std::uint64_t size, std::string& tail, const std::string& local) {
    XT_ASSIGN_OR_RETURN(const std::size_t got, readFullyAt(fd, tail.data(), tail.size(),
                                                           size - tail.size(), "read " + local));
    if (got < tail.size()) return errnoStatus("read " + local, EIO); // the file ends first
    return Status::ok();
}

bool isDataName(const std::string& rel) {
    return xdl::parsePartFileName(rel.substr(rel.rfind('/') + 1)).has_value();
}

} // namespace

Status MirrorSyncer::syncAll(const std::vector<MirrorFile>& files) {
    for (const auto& f : files) { // progress totals
        auto size = localSize(m_cacheDir + "/" + f.rel);
        if (sparse(f.rel)) continue; // no data byte is fetched now
        if (!size || f.st.length < *size)
            m_total += f.st.length; // new or shrunk: fetched whole
        else
            m_total += f.st.length - *size;
    }
    for (const auto& f : files) {
        Status s = sync(f);
        if (s.isOk() || s.code() == ErrorCode::NotFound) continue; // NotFound: deleted meanwhile
        return s;
    }
    return Status::ok();
}

bool MirrorSyncer::sparse(const std::string& rel) const {
    return m_sparse && isDataName(rel);
}

Status MirrorSyncer::sync(const MirrorFile& rf) {
    std::string local = m_cacheDir + "/" + rf.rel;
    auto size = localSize(local);
    auto it = m_index.find(rf.rel);
    if (sparse(rf.rel)) return syncSparse(rf, local, size, it);
    if (size && it != m_index.end()) {
        const MirrorEntry& e = it->second;
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

void MirrorSyncer::record(const MirrorFile& rf, const std::string& local, bool sparse) {
    MirrorEntry e;
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
Status MirrorSyncer::syncSparse(const MirrorFile& rf, const std::string& local,
                                std::optional<std::uint64_t> size, MirrorIndex::iterator it) {
    if (size && it != m_index.end()) {
        const MirrorEntry& e = it->second;
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

Status MirrorSyncer::createSparse(const MirrorFile& rf, const std::string& local) {
    std::error_code ec;
    fs::create_directories(fs::path(local).parent_path(), ec);
    fs::create_directories(m_cacheDir + "/.tmp", ec);
    std::string tmp = fmt::format("{}/.tmp/{}.{}", m_cacheDir, ::getpid(), std::random_device{}());
    struct stat st {};
    {
        UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
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
    Status s = map ? map->write(RangeMap{static_cast<std::uint64_t>(st.st_ino), {}}) : map.status();
    if (s.isOk() && ::rename(tmp.c_str(), local.c_str()) != 0)
        s = errnoStatus("rename to " + local, errno);
    if (!s.isOk()) ::unlink(tmp.c_str());
    return s;
}

// The copy takes the remote length; a whole copy (from a mirror that was not sparse) gets a
// map saying all its old bytes are there.
Status MirrorSyncer::growSparse(const MirrorFile& rf, const std::string& local, std::uint64_t size,
                                bool wasSparse) {
    auto map = LockedRangeMap::open(rangeMapPath(m_cacheDir, rf.rel));
    if (!map) return map.status();
    UniqueFd fd(::open(local.c_str(), O_RDWR | O_CLOEXEC));
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
Status MirrorSyncer::checkTail(const MirrorFile& rf, const std::string& local, std::uint64_t size,
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
        UniqueFd fd(::open(local.c_str(), O_RDONLY | O_CLOEXEC));
        if (fd.get() < 0) return errnoStatus("read " + local, errno);
        XT_RETURN_IF_ERROR(readTail(fd.get(), size, tail, local));
    }
    XT_RETURN_IF_ERROR(
        m_client.read(rf.url, size - overlap, overlap, [&](const char* d, std::size_t n) {
            remote.append(d, n);
            return Status::ok();
        }));
    replaced = remote != tail;
    return Status::ok();
}

ProgressCallback MirrorSyncer::progress() {
    if (!m_cb) return {};
    std::uint64_t base = m_done;
    return [this, base](const ProgressReport& r) {
        return m_cb(ProgressReport{base + r.done, m_total, "downloading from HDFS"});
    };
}

Status MirrorSyncer::fetchAppended(const MirrorFile& rf, const std::string& local,
                                   std::uint64_t size, bool& mismatch) {
    std::size_t overlap = static_cast<std::size_t>(std::min<std::uint64_t>(size, kOverlap));
    if (overlap == 0 && rf.st.length == size) return Status::ok();
    std::string tail(overlap, '\0');
    UniqueFd fd(::open(local.c_str(), O_RDWR | O_CLOEXEC));
    if (fd.get() < 0) return errnoStatus("open " + local, errno);
    XT_RETURN_IF_ERROR(readTail(fd.get(), size, tail, local));
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
        return writeFully(fd.get(), d + c, n - c, "write " + local);
    };
    Status s =
        m_client.read(rf.url, size - overlap, rf.st.length - size + overlap, sink, progress());
    if (mismatch) return Status::ok();
    return s;
}

Status MirrorSyncer::fetchWhole(const MirrorFile& rf, const std::string& local) {
    std::error_code ec;
    fs::create_directories(fs::path(local).parent_path(), ec);
    fs::create_directories(m_cacheDir + "/.tmp", ec);
    std::string tmp = fmt::format("{}/.tmp/{}.{}", m_cacheDir, ::getpid(), std::random_device{}());
    Status s;
    {
        UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        if (fd.get() < 0) return errnoStatus("create " + tmp, errno);
        if (rf.st.length > 0) {
            ByteSink sink = [&](const char* d, std::size_t n) -> Status {
                m_out.bytesFetched += n;
                m_done += n;
                return writeFully(fd.get(), d, n, "write " + tmp);
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

} // namespace xt::storage
