#pragma once
// Where the recorder's writer thread puts encoded records. The default sink writes the upstream
// file series into a local directory (FileSeriesWriter); other sinks (e.g. WebHDFS, in its own
// library so the recorder stays free of curl) plug in through RecorderConfig::sink.
// A sink is created on the first recorded step, then used only by the writer thread.

#include "core/base/status.h"
#include "core/xdl/file_series_writer.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace xt::recorder {

class OutputSink {
public:
    virtual ~OutputSink() = default;
    // A framed record ([u32 length][Record]) and its scalar fields (for the metas).
    virtual Status write(xdl::Bytes framedRecord, std::int64_t gstep, std::int64_t lstep,
                         std::int64_t timestamp) = 0;
    virtual Status sync() = 0;                    // pushes what was written to stable storage
    virtual Status close() = 0;                   // finalises; safe to call more than once
    virtual std::uint64_t totalBytes() const = 0; // bytes of the series so far, headers included
    virtual std::int64_t partIndex() const = 0;   // index of the part file being written
};

// Opens a sink for a series with these options and header keys (called on the first record).
using OutputSinkFactory = std::function<Result<std::unique_ptr<OutputSink>>(
    const xdl::WriterOptions& options, const std::vector<std::string>& keys)>;

// The default sink: files in options.outputDir through FileSeriesWriter. With `summaries`, each
// part's summary ({part}.xts, docs/SUMMARY-FORMAT.md) is computed as records are written (on the
// calling thread: the recorder's writer) and saved atomically when the part is complete (split,
// close) and at most every kSummarySaveInterval (and 20 times the last save's duration) while it
// grows; a reader extends a summary over the records written after it. A summary that cannot be
// saved never fails a write.
Result<std::unique_ptr<OutputSink>> openLocalFileSink(const xdl::WriterOptions& options,
                                                      const std::vector<std::string>& keys,
                                                      bool summaries = true);
inline constexpr std::chrono::milliseconds kSummarySaveInterval{2000};

} // namespace xt::recorder
