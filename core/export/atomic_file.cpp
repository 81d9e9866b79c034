#include "core/export/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <unistd.h>
#include <utility>

namespace xt {

std::string temporaryPathFor(const std::string& path) {
    return path + ".tmp-" + std::to_string(::getpid());
}

Status commitTemporary(const std::string& tmp, const std::string& path) {
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        return errnoStatus("cannot rename " + tmp + " to " + path, errno);
    return Status::ok();
}

Result<AtomicFile> AtomicFile::create(const std::string& path) {
    std::string tmp = temporaryPathFor(path);
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return errnoStatus("cannot create " + tmp, errno);
    return AtomicFile(path, std::move(tmp), f);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : m_path(std::move(o.m_path)), m_tmp(std::move(o.m_tmp)),
      m_file(std::exchange(o.m_file, nullptr)), m_errno(o.m_errno), m_committed(o.m_committed) {}

AtomicFile::~AtomicFile() {
    if (m_file) std::fclose(m_file);
    if (!m_committed && !m_tmp.empty()) std::remove(m_tmp.c_str());
}

void AtomicFile::write(std::string_view bytes) {
    if (m_errno || !m_file) return;
    if (std::fwrite(bytes.data(), 1, bytes.size(), m_file) != bytes.size())
        m_errno = errno ? errno : EIO;
}

Status AtomicFile::commit() {
    if (!m_file) return Status(ErrorCode::InvalidArgument, m_path + " was already committed");
    if (std::fflush(m_file) != 0 && !m_errno) m_errno = errno;
    if (::fsync(::fileno(m_file)) != 0 && !m_errno) m_errno = errno;
    if (std::fclose(m_file) != 0 && !m_errno) m_errno = errno;
    m_file = nullptr;
    if (m_errno) return errnoStatus("cannot write " + m_tmp, m_errno);
    XT_RETURN_IF_ERROR(commitTemporary(m_tmp, m_path));
    m_committed = true;
    return Status::ok();
}

} // namespace xt
