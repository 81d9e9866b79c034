#include "core/xdl/file_series_writer.h"

#include "core/base/fd_io.h"
#include "core/xdl/run_discovery.h"

#include <cerrno>
#include <cmath>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace xt::xdl {

namespace {

// Replaces `path` with `content` through a temporary file and a rename, so a reader sees the
// old or the new content, never a partial one.
Status writeFileAtomically(const std::string& path, const std::string& content) {
    std::string tmp = path + ".tmp";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errnoStatus("cannot create " + tmp, errno);
    Status st = writeFully(fd, content.data(), content.size(), "cannot write " + tmp);
    if (::close(fd) != 0 && st) st = errnoStatus("cannot close " + tmp, errno);
    if (st && ::rename(tmp.c_str(), path.c_str()) != 0)
        st = errnoStatus("cannot rename " + tmp + " to " + path, errno);
    if (!st) ::unlink(tmp.c_str());
    return st;
}

} // namespace

FileSeriesWriter::FileSeriesWriter(const WriterOptions& options, std::vector<std::string> keys)
    : m_options(options), m_keys(std::move(keys)),
      m_maxBytes(static_cast<std::uint64_t>(std::llround(options.maxFileMB * 1e6))) {
    std::string header = encodeHeader(m_keys);
    appendLength(m_header, static_cast<std::uint32_t>(header.size()));
    m_header += header;
}

FileSeriesWriter::~FileSeriesWriter() {
    (void)close();
}

Result<std::unique_ptr<FileSeriesWriter>> FileSeriesWriter::create(const WriterOptions& options,
                                                                   std::vector<std::string> keys) {
    if (options.fileName.empty())
        return Status(ErrorCode::InvalidArgument, "output file name is empty");
    if (options.rank < 0) return Status(ErrorCode::InvalidArgument, "rank must be >= 0");
    if (!(options.maxFileMB > 0))
        return Status(ErrorCode::InvalidArgument, "max_file_m_size must be > 0");
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec) // EACCES, EROFS -> PermissionDenied; ENOSPC -> NoSpace (errnoStatus)
        return errnoStatus("cannot create output directory " + options.outputDir, ec.value());
    std::unique_ptr<FileSeriesWriter> w(new FileSeriesWriter(options, std::move(keys)));
    XT_RETURN_IF_ERROR(w->openPart(1));
    return w;
}

Status FileSeriesWriter::openPart(std::int64_t index) {
    PartName name{m_options.training ? "train" : "test", m_options.fileName, m_options.rank, index};
    m_path = (std::filesystem::path(m_options.outputDir) / partFileName(name)).string();
    m_index = index;
    m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_fd < 0) return errnoStatus("cannot create " + m_path, errno);
    XT_RETURN_IF_ERROR(writeFileAtomically(m_path + ".meta", ""));
    m_bytesInPart = 0;
    m_meta = MetaInfo{};
    m_partHasRecords = false;
    return writeAll({reinterpret_cast<const std::uint8_t*>(m_header.data()), m_header.size()});
}

Status FileSeriesWriter::finishPart() {
    if (m_fd < 0) return Status::ok();
    Status st = Status::ok();
    if (::close(m_fd) != 0) st = errnoStatus("cannot close " + m_path, errno);
    m_fd = -1;
    Status meta = writeFileAtomically(m_path + ".meta", encodeMeta(m_meta));
    return st ? meta : st;
}

Status FileSeriesWriter::writeAll(Bytes bytes) {
    Status st = writeFully(m_fd, bytes.data(), bytes.size(), "cannot write " + m_path);
    if (!st) {
        // Roll back a partial write so the file still ends on a complete record.
        if (::ftruncate(m_fd, static_cast<off_t>(m_bytesInPart)) == 0)
            ::lseek(m_fd, static_cast<off_t>(m_bytesInPart), SEEK_SET);
        return st;
    }
    m_bytesInPart += bytes.size();
    m_totalBytes += bytes.size();
    return st;
}

Status FileSeriesWriter::write(Bytes framed, std::int64_t gstep, std::int64_t lstep,
                               std::int64_t timestamp) {
    if (m_fd < 0) return Status(ErrorCode::InvalidArgument, "writer is closed");
    if (framed.size() < 4 || readLength(framed.data()) != framed.size() - 4)
        return Status(ErrorCode::InvalidArgument, "record bytes are not one framed record");
    if (m_bytesInPart >= m_maxBytes) {
        XT_RETURN_IF_ERROR(finishPart());
        XT_RETURN_IF_ERROR(openPart(m_index + 1));
    }
    XT_RETURN_IF_ERROR(writeAll(framed));
    if (!m_partHasRecords) {
        m_meta.lstepBegin = lstep;
        m_meta.gstepBegin = gstep;
        m_meta.timestampBegin = timestamp;
        m_partHasRecords = true;
    }
    m_meta.lstepEnd = lstep;
    m_meta.gstepEnd = gstep;
    m_meta.timestampEnd = timestamp;
    ++m_records;
    return Status::ok();
}

Status FileSeriesWriter::sync() {
    if (m_fd >= 0 && ::fdatasync(m_fd) != 0) return errnoStatus("cannot sync " + m_path, errno);
    return Status::ok();
}

Status FileSeriesWriter::close() {
    return finishPart();
}

} // namespace xt::xdl
