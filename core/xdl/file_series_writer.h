#pragma once
// Writes one rank's XDL data file series exactly as the upstream writer does: files
// {prefix}.{name}.{rank}.{index} starting at index 1, a Header at the start of each, a split
// before a record when the current file holds >= max_file_m_size * 10^6 bytes, and one .meta per
// file (created empty, filled when the file is closed). Each record reaches the file in one
// write; a failed write is rolled back so the file ends on a complete record.

#include "core/base/status.h"
#include "core/xdl/wire.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xt::xdl {

struct WriterOptions {
    std::string outputDir = ".";
    std::string fileName = "trace"; // output_file_name; may contain dots
    double maxFileMB = 300;         // decimal megabytes
    int rank = 0;
    bool training = true; // prefix "train", else "test"
};

class FileSeriesWriter {
public:
    // Creates the output directory when needed and opens part 1 (header written, meta empty).
    static Result<std::unique_ptr<FileSeriesWriter>> create(const WriterOptions& options,
                                                            std::vector<std::string> keys);
    ~FileSeriesWriter(); // closes; errors at that point can only be seen by calling close()
    FileSeriesWriter(const FileSeriesWriter&) = delete;
    FileSeriesWriter& operator=(const FileSeriesWriter&) = delete;

    // Writes a framed record ([u32 length][Record], see RecordEncoder) whose scalar fields are
    // given again here for the meta.
    Status write(Bytes framedRecord, std::int64_t gstep, std::int64_t lstep,
                 std::int64_t timestamp);
    Status sync();  // flushes the current file to stable storage
    Status close(); // finalises the current meta; safe to call more than once

    const std::vector<std::string>& keys() const { return m_keys; }
    const std::string& currentPath() const { return m_path; }
    std::int64_t partIndex() const { return m_index; }
    std::uint64_t bytesInPart() const { return m_bytesInPart; }
    std::uint64_t totalBytes() const { return m_totalBytes; }
    std::uint64_t recordCount() const { return m_records; }

private:
    FileSeriesWriter(const WriterOptions& options, std::vector<std::string> keys);
    Status openPart(std::int64_t index);
    Status finishPart();
    Status writeAll(Bytes bytes);

    WriterOptions m_options;
    std::vector<std::string> m_keys;
    std::string m_header; // framed
    std::uint64_t m_maxBytes;
    int m_fd = -1;
    std::string m_path;
    std::int64_t m_index = 0;
    std::uint64_t m_bytesInPart = 0;
    std::uint64_t m_totalBytes = 0;
    std::uint64_t m_records = 0;
    MetaInfo m_meta;
    bool m_partHasRecords = false;
};

} // namespace xt::xdl
