#pragma once
// HdfsMirror's fetching step: brings the local copy of one remote file up to date and records
// it in the mirror index. Whole copies fetch only what was appended (checking that the old tail
// still matches) or the whole file again when it was replaced; sparse copies (data files in
// sparse mode) are only created, grown or re-created, their bytes fetched later by range.

#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/storage/hdfs_mirror.h"
#include "core/storage/webhdfs_client.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace xt::storage {

// What the mirror index says about one local copy.
struct MirrorEntry {
    std::uint64_t length = 0;
    std::int64_t mtime = 0;
    std::int64_t fileId = 0;
    std::uint64_t lastUse = 0;
    bool sparse = false; // a sparse copy: its range map says which bytes are there
};
using MirrorIndex = std::map<std::string, MirrorEntry>; // key: path relative to the cache dir

struct MirrorFile {
    HdfsUrl url;
    HdfsFileStatus st;
    std::string rel; // path relative to the cache directory
};

class MirrorSyncer {
public:
    // Entries synced get lastUse `use`; counts and changed files go to `out`.
    MirrorSyncer(WebHdfsClient& client, const std::string& cacheDir, bool sparse,
                 MirrorIndex& index, std::uint64_t use, MirrorStatus& out,
                 const ProgressCallback& cb)
        : m_client(client), m_cacheDir(cacheDir), m_sparse(sparse), m_index(index), m_use(use),
          m_out(out), m_cb(cb) {}

    // Syncs the files in order; a file deleted meanwhile (NotFound) is skipped. The first other
    // failure stops it and is returned (the index keeps what was synced before).
    Status syncAll(const std::vector<MirrorFile>& files);
    Status sync(const MirrorFile& rf);

private:
    bool sparse(const std::string& rel) const; // mirrored as a sparse copy
    void record(const MirrorFile& rf, const std::string& local, bool sparse = false);
    Status syncSparse(const MirrorFile& rf, const std::string& local,
                      std::optional<std::uint64_t> size, MirrorIndex::iterator it);
    Status createSparse(const MirrorFile& rf, const std::string& local);
    Status growSparse(const MirrorFile& rf, const std::string& local, std::uint64_t size,
                      bool wasSparse);
    Status checkTail(const MirrorFile& rf, const std::string& local, std::uint64_t size,
                     bool wasSparse, bool& replaced);
    ProgressCallback progress();
    Status fetchAppended(const MirrorFile& rf, const std::string& local, std::uint64_t size,
                         bool& mismatch);
    Status fetchWhole(const MirrorFile& rf, const std::string& local);

    WebHdfsClient& m_client;
    const std::string& m_cacheDir;
    const bool m_sparse;
    MirrorIndex& m_index;
    std::uint64_t m_use;
    MirrorStatus& m_out;
    const ProgressCallback& m_cb;
    std::uint64_t m_done = 0;
    std::uint64_t m_total = 0;
};

} // namespace xt::storage
