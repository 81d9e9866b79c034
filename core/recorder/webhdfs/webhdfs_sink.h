#pragma once
// A recorder output sink that writes the XDL file series to a WebHDFS directory. The series is
// written first into a local spool (RecorderConfig::outputDir, through FileSeriesWriter, so the
// bytes and splits are exactly those of a local recording), then uploaded in batches: CREATE for
// a new part file (with its empty .meta), APPEND for the bytes added since, CREATE (overwrite)
// of the .meta once the part is finished; a finished part leaves the spool once uploaded.
// While the namenode is unavailable the bytes wait in the spool and later batches retry. When
// the bytes not yet uploaded would exceed spoolBytes, records are dropped and counted; close()
// then reports the loss as an error. Lives in its own library so the recorder stays free of curl.

#include "core/recorder/output_sink.h"
#include "core/storage/webhdfs_client.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace xt::recorder {

struct WebHdfsSinkOptions {
    std::string url; // destination directory: hdfs://host:port/dir (created when missing)
    storage::WebHdfsSettings webhdfs;
    std::uint64_t batchBytes = 4 << 20;            // upload once this much is pending
    std::chrono::milliseconds batchInterval{2000}; // or once this long passed since the last
    std::uint64_t spoolBytes = 256ull << 20;       // most bytes held that are not yet on HDFS
    int closeAttempts = 3; // upload rounds tried by close(), batchInterval apart
};

struct WebHdfsSinkStats {
    std::uint64_t uploadedBytes = 0;
    std::uint64_t pendingBytes = 0; // in the spool, not yet on HDFS
    std::uint64_t lostRecords = 0;  // dropped because the spool was full
    std::uint64_t lostBytes = 0;
    std::uint64_t failedUploads = 0; // batches that failed after the client's retries
    std::string lastError;
};

// Thread-safe view of a sink's counters, readable while the recorder runs.
class WebHdfsSinkMonitor {
public:
    WebHdfsSinkStats stats() const {
        std::lock_guard lock(m_mutex);
        return m_stats;
    }
    template <class F> void update(F&& f) {
        std::lock_guard lock(m_mutex);
        f(m_stats);
    }

private:
    mutable std::mutex m_mutex;
    WebHdfsSinkStats m_stats;
};

// A factory for RecorderConfig::sink. `monitor`, when given, receives the sink's counters.
OutputSinkFactory webHdfsSinkFactory(WebHdfsSinkOptions options,
                                     std::shared_ptr<WebHdfsSinkMonitor> monitor = nullptr);

} // namespace xt::recorder
