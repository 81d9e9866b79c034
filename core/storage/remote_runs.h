#pragma once
// Runs on HDFS opened without whole copies. The URLs among a command's paths are mirrored in
// sparse mode (metas and part summaries whole, data files as sparse copies); the runs discovered
// in the mirror then get, per part, its URL and a range fetcher, so a reader fetches only the
// bytes it reads, and a part's summary is identified by its URL.

#include "core/base/diagnostics.h"
#include "core/storage/hdfs_mirror.h"

#include <memory>
#include <string>
#include <vector>

namespace xt::storage {

class RemoteRuns {
public:
    // Mirrors each hdfs://, webhdfs:// or swebhdfs:// entry of `paths` (options.sparse is set).
    // Errors as HdfsMirror::mirror; an unreachable namenode with a local copy is a status with
    // `offline` set.
    static Result<RemoteRuns> open(const std::vector<std::string>& paths, MirrorOptions options,
                                   const ProgressCallback& cb = {});

    // `paths` with each URL replaced by its mirror path.
    const std::vector<std::string>& localPaths() const { return m_localPaths; }
    const std::vector<MirrorStatus>& statuses() const { return m_statuses; }
    // Gives the run its URL (RunFiles::source) and each of its parts in the mirror its URL and
    // fetcher; a copy that cannot be opened is reported to diag (its bytes then read as errors).
    void attach(xdl::RunFiles& files, Diagnostics& diag) const;
    // `text` with mirror paths written as their URLs.
    std::string toUrls(std::string text) const;
    // Bytes fetched: whole files while mirroring plus ranges since.
    std::uint64_t bytesFetched() const;
    // Writes `bytes` to the file `url` on HDFS so that readers never see a torn one
    // (WebHdfsClient::replace). PermissionDenied when HDFS refuses.
    Status upload(const std::string& url, std::string_view bytes);
    HdfsMirror& mirror() { return *m_mirror; }

private:
    std::unique_ptr<HdfsMirror> m_mirror;
    std::vector<std::string> m_localPaths;
    std::vector<MirrorStatus> m_statuses;
};

} // namespace xt::storage
