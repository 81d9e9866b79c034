#pragma once
// A file descriptor closed with its owner, and writing all of a buffer to one.

#include "core/base/status.h"

#include <cstddef>
#include <string>

namespace xt {

class UniqueFd {
public:
    explicit UniqueFd(int fd = -1) : m_fd(fd) {}
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd();
    int get() const { return m_fd; }

private:
    int m_fd;
};

// Writes n bytes at p to fd, through short writes and EINTR; a failure is errnoStatus(what).
Status writeFully(int fd, const void* p, std::size_t n, const std::string& what);

} // namespace xt
