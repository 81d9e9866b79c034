#include "core/base/fd_io.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

namespace xt {

void UniqueFd::reset(int fd) {
    if (m_fd >= 0 && m_fd != fd) ::close(m_fd);
    m_fd = fd;
}

Status writeFully(int fd, const void* p, std::size_t n, const std::string& what) {
    const char* d = static_cast<const char*>(p);
    while (n > 0) {
        const ssize_t w = ::write(fd, d, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errnoStatus(what, errno);
        d += w, n -= std::size_t(w);
    }
    return Status::ok();
}

Status writeFullyAt(int fd, const void* p, std::size_t n, std::uint64_t offset,
                    const std::string& what) {
    const char* d = static_cast<const char*>(p);
    for (std::size_t done = 0; done < n;) {
        const ssize_t w = ::pwrite(fd, d + done, n - done, off_t(offset + done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return errnoStatus(what, w < 0 ? errno : ENOSPC);
        done += std::size_t(w);
    }
    return Status::ok();
}

Result<std::size_t> readFullyAt(int fd, void* p, std::size_t n, std::uint64_t offset,
                                const std::string& what) {
    char* d = static_cast<char*>(p);
    std::size_t done = 0;
    while (done < n) {
        const ssize_t r = ::pread(fd, d + done, n - done, off_t(offset + done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errnoStatus(what, errno);
        if (r == 0) break;
        done += std::size_t(r);
    }
    return done;
}

int openUnlinkedFile(const std::string& dir, const std::string& namePrefix) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::string name = (std::filesystem::path(dir) / (namePrefix + "-XXXXXX")).string();
    const int fd = ::mkstemp(name.data());
    if (fd >= 0) ::unlink(name.c_str());
    return fd;
}

} // namespace xt
